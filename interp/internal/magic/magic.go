package magic

import (
	"fmt"
	"strings"
	"unicode"
)

// Magic describes one magic command, for %help.
type Magic struct {
	Name string // as typed: "%time", "%%time", "!"
	// Frontend is true for magics that the frontend (kernel, REPL,
	// notebook runner) runs because they need its list of cells; the
	// session answers them with an error naming the frontend's job.
	Frontend bool
	Help     string // one line
}

// All returns every magic of gnnlab, in the order %help lists them.
func All() []Magic {
	return []Magic{
		{Name: "%help", Help: "list the magics"},
		{Name: "%time CODE", Help: "run CODE once and print its CPU and wall time"},
		{Name: "%%time", Help: "run the rest of the cell once and print its CPU and wall time"},
		{Name: "%timeit [-n N] [-r R] CODE", Help: "time CODE over auto-ranged loops: mean ± std. dev. per loop"},
		{Name: "%%timeit [-n N] [-r R]", Help: "the same for the rest of the cell"},
		{Name: "%who", Help: "list the session's variables and their types"},
		{Name: "%reset", Help: "forget every variable, function, type and import (a fresh session)"},
		{Name: "%env [NAME[=VALUE]]", Help: "list, show or set environment variables"},
		{Name: "%%writefile [-a] FILE", Help: "write (or with -a append) the rest of the cell to FILE"},
		{Name: "!COMMAND", Help: "run a shell command (sh -c) and show its output"},
		{Name: "%gpu", Help: "show the GPU (device, memory, how work is mapped onto it), or why there is none"},
		{Name: "%go get MODULE[@VERSION]", Help: "make a module's packages importable (interpreted from source; also a folder with a go.mod)"},
		{Name: "%go list", Help: "list the modules %go get added and their packages"},
		{Name: "%compiled on|off", Help: "turn the compiled tier (cells' declarations built as Go plugins) on or off for the session"},
		{Name: "%compiled", Help: "show, per declaration, whether it runs compiled or interpreted and why"},
		{Name: "%history", Frontend: true, Help: "list the cells run so far"},
		{Name: "%replay", Frontend: true, Help: "after a worker crash, re-run the cells that had succeeded"},
		{Name: "%restart", Frontend: true, Help: "restart the Go session with a fresh worker"},
		{Name: "name? / name??", Frontend: true, Help: "show the documentation of name (?? with more detail)"},
	}
}

// HelpText returns the text %help prints.
func HelpText() string {
	var b strings.Builder
	b.WriteString("Magics (a line starting with % or !, or a cell starting with %%):\n")
	w := 0
	for _, m := range All() {
		w = max(w, len(m.Name))
	}
	for _, m := range All() {
		fmt.Fprintf(&b, "  %-*s  %s\n", w, m.Name, m.Help)
	}
	return b.String()
}

// Split reports whether line is a magic line ("%name args" or
// "!command") and returns its name ("!" for a shell command) and
// arguments. A cell magic "%%name" is returned with name "%name".
func Split(line string) (name, args string, ok bool) {
	line = strings.TrimRight(line, " \t\r")
	switch {
	case strings.HasPrefix(line, "!"):
		return "!", strings.TrimSpace(line[1:]), true
	case strings.HasPrefix(line, "%") && len(line) > 1:
		name, args, _ = strings.Cut(line[1:], " ")
		return name, strings.TrimSpace(args), name != "" && name != "%"
	}
	return "", "", false
}

// Frontend reports whether code is one line holding a magic that the
// frontend runs (%history, %replay, %restart), and returns its name
// without the % and its arguments.
func Frontend(code string) (name, args string, ok bool) {
	s := strings.TrimSpace(code)
	if strings.Contains(s, "\n") {
		return "", "", false
	}
	name, args, ok = Split(s)
	switch name {
	case "history", "replay", "restart":
		return name, args, ok
	}
	return "", "", false
}

// Page reports whether code asks for documentation IPython's way,
// "name?" (detail 0) or "name??" (detail 1), and returns the name.
func Page(code string) (name string, detail int, ok bool) {
	s := strings.TrimSpace(code)
	if strings.ContainsAny(s, "\n") || !strings.HasSuffix(s, "?") {
		return "", 0, false
	}
	s = strings.TrimSuffix(s, "?")
	if strings.HasSuffix(s, "?") {
		s, detail = strings.TrimSuffix(s, "?"), 1
	}
	if s == "" {
		return "", 0, false
	}
	for _, r := range s {
		if !(r == '.' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return "", 0, false
		}
	}
	return s, detail, true
}
