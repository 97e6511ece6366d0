package interp

import (
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"go/types"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/workerproto"
	yaegi "github.com/traefik/yaegi/interp"
)

// ErrNoStdin is what reading os.Stdin in a cell returns when the session
// has no Options.Stdin (the frontend does not accept input).
var ErrNoStdin = errors.New("interp: this frontend does not accept input (allow_stdin is false)")

// Error names, as Jupyter shows them (ename): workerproto's vocabulary.
const (
	nameCompile     = workerproto.EnameCompile
	namePanic       = workerproto.EnamePanic
	nameRuntime     = workerproto.EnameRuntime
	nameInterrupted = workerproto.EnameInterrupted
	nameUnsupported = workerproto.EnameUnsupported
	nameExit        = workerproto.EnameExit // os.Exit with a non-zero status
	nameDebugger    = workerproto.EnameDebugger
)

// posRE matches a virtual position, which yaegi writes without its file
// name "_.go".
var posRE = regexp.MustCompile(`(?:_\.go:)?\b(\d{6,}):(\d+)\b`)

// cellPos writes a virtual position as "cell[N]:L:C".
func cellPos(v, col int) string {
	n, l := cellLine(v)
	if col > 0 {
		return fmt.Sprintf("cell[%d]:%d:%d", n, l, col)
	}
	return fmt.Sprintf("cell[%d]:%d", n, l)
}

// compileErrorAt is the compile error msg at pos, a position of fset in
// a cell.
func compileErrorAt(fset *token.FileSet, pos token.Pos, msg string) *Error {
	p := fset.Position(pos)
	return &Error{Name: nameCompile, Value: msg, Traceback: []string{cellPos(p.Line, p.Column) + ": " + msg}}
}

// compileErrors is the compile error of go/types' errors in a cell, as Go
// reports them: the first is the value, and the traceback lists up to 10,
// each at its cell position.
func compileErrors(errs []types.Error) *Error {
	// A message may name a position (goto over a declaration).
	e := compileErrorAt(errs[0].Fset, errs[0].Pos, mapPositions(errs[0].Msg))
	for _, te := range errs[1:min(len(errs), 10)] {
		p := te.Fset.Position(te.Pos)
		e.Traceback = append(e.Traceback, cellPos(p.Line, p.Column)+": "+mapPositions(te.Msg))
	}
	return e
}

// insides are texts of an error that show the interpreter's insides
// rather than Go's words: yaegi's own (x, y := g gave "unsupported
// assign expression") and the names the session makes (func main(x int)
// gave "not enough arguments in call to __gnnlab_main").
var insides = []string{"internal error", "reflect: ", "reflect.", "nil type", "yaegi", "unsupported assign expression", helperPrefix}

// goWords returns err, or, when err shows the interpreter's insides or
// is a runtime error, and go/types found errors in the cell (typeErrs),
// the first of them as the compile error Go reports: yaegi accepts some
// cells that Go refuses and then fails on them with reflect's or its own
// words (min(), 0[0], a generic type used without instantiation, T.M()
// without its receiver). A cell that failed so at run time may have
// printed before.
func goWords(err error, typeErrs []types.Error) error {
	var e *Error
	if len(typeErrs) == 0 || !errors.As(err, &e) || e.Name == nameInterrupted {
		return err
	}
	// A runtime error too: yaegi's reach through a nil value, in Go's
	// words, in a cell that Go would not have compiled.
	if e.Name != nameRuntime && !showsInsides(e) {
		return err
	}
	var te types.Error
	for _, t := range typeErrs {
		// Not a continuation line of an error ("\tprevious case").
		if !strings.HasPrefix(t.Msg, "\t") && (te.Fset == nil || t.Pos < te.Pos) {
			te = t
		}
	}
	if te.Fset == nil {
		return err
	}
	return compileErrorAt(te.Fset, te.Pos, te.Msg)
}

// showsInsides reports whether e's text holds one of insides.
func showsInsides(e *Error) bool {
	text := e.Value + "\n" + strings.Join(e.Traceback, "\n")
	for _, s := range insides {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// mapPositions replaces the interpreter's positions in s by cell positions.
func mapPositions(s string) string {
	return posRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := posRE.FindStringSubmatch(m)
		v, _ := strconv.Atoi(sub[1])
		col, _ := strconv.Atoi(sub[2])
		return cellPos(v, col)
	})
}

// splitPos cuts a leading "cell[N]:L:C: " off a message.
func splitPos(s string) (pos, msg string) {
	if strings.HasPrefix(s, "cell[") {
		if i := strings.Index(s, ": "); i > 0 {
			return s[:i], s[i+2:]
		}
	}
	return "", s
}

// positioned builds an *Error whose traceback is "pos: message" lines.
func positioned(name string, lines []string) *Error {
	e := &Error{Name: name}
	for i, l := range lines {
		l = mapPositions(l)
		_, msg := splitPos(l)
		if i == 0 {
			e.Value = msg
		}
		e.Traceback = append(e.Traceback, l)
	}
	return e
}

// redeclRE matches go/parser's words for a redeclaration, which go build
// writes "x redeclared in this block\n\tFILE:LINE:COL: other declaration
// of x".
var redeclRE = regexp.MustCompile(`^((\w+) redeclared in this block)\n\tprevious declaration at (\S+)$`)

// callExprPos moves go/parser's "expression in defer must be function
// call" (and go's) from the end of the expression, where go/parser puts
// it, to its start, where go build does; cell is the cell's text.
func callExprPos(err error, cell string) error {
	var list scanner.ErrorList
	if !errors.As(err, &list) {
		return err
	}
	lines := strings.Split(cell, "\n")
	for _, e := range list {
		kw, ok1 := strings.CutPrefix(e.Msg, "expression in ")
		kw, ok2 := strings.CutSuffix(kw, " must be function call")
		if !ok1 || !ok2 {
			continue
		}
		_, l := cellLine(e.Pos.Line)
		if l < 1 || l > len(lines) || e.Pos.Column-1 > len(lines[l-1]) {
			continue
		}
		text := lines[l-1][:e.Pos.Column-1]
		i := len(text)
		for i >= 0 {
			// The keyword as a word (not the end of undefer).
			if i = strings.LastIndex(text[:i], kw); i <= 0 || !isIdentByte(text[i-1]) {
				break
			}
		}
		if i < 0 {
			continue
		}
		rest := text[i+len(kw):]
		e.Pos.Column = i + len(kw) + len(rest) - len(strings.TrimLeft(rest, " \t")) + 1
	}
	return err
}

func isIdentByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b >= 0x80
}

// parseError converts a go/parser error.
func parseError(fset *token.FileSet, err error) *Error {
	var list scanner.ErrorList
	if errors.As(err, &list) {
		var lines []string
		for _, e := range list {
			msg := redeclRE.ReplaceAllString(e.Msg, "$1\n\t$3: other declaration of $2")
			lines = append(lines, cellPos(e.Pos.Line, e.Pos.Column)+": "+msg)
			if len(lines) == 10 {
				break
			}
		}
		return positioned(nameCompile, lines)
	}
	return &Error{Name: nameCompile, Value: err.Error(), Traceback: []string{err.Error()}}
}

// genericStdlib are the standard packages whose generic functions yaegi
// has no symbols for.
var genericStdlib = map[string]bool{"slices": true, "maps": true, "cmp": true, "iter": true, "sync": true, "atomic": true, "unique": true, "weak": true}

var (
	undefSelRE  = regexp.MustCompile(`undefined selector: (\w+)\.(\w+)`)
	importErrRE = regexp.MustCompile(`import "([^"]+)" error: unable to find source related to: "[^"]+".*`)
)

// compileError converts an error of yaegi's compiler.
func compileError(err error) *Error {
	msg := mapPositions(err.Error())
	if m := importErrRE.FindStringSubmatch(msg); m != nil {
		name, text := nameCompile, notAvailable(m[1]) // imports.go
		if m[1] == "iter" {
			name, text = nameUnsupported, `package "iter" (range-over-func iterators) is not supported by the interpreter`
		}
		pos, _ := splitPos(msg)
		return &Error{Name: name, Value: text, Traceback: []string{strings.TrimPrefix(pos+": ", ": ") + text}}
	}
	if m := undefSelRE.FindStringSubmatch(msg); m != nil && genericStdlib[m[1]] {
		text := fmt.Sprintf("%s.%s is undefined, or is a generic function of the standard library, which the interpreter does not provide (write the loop instead)", m[1], m[2])
		pos, _ := splitPos(msg)
		return &Error{Name: nameUnsupported, Value: text, Traceback: []string{strings.TrimPrefix(pos+": ", ": ") + text}}
	}
	return positioned(nameCompile, strings.Split(msg, "\n"))
}

// runtimeError converts a panic of the cell, with the panic lines that
// yaegi printed while unwinding (innermost first).
func runtimeError(p yaegi.Panic, frames []string) *Error {
	v := p.Value
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		v = rv.Interface()
	}
	e := &Error{Name: namePanic}
	var re runtime.Error
	switch x := v.(type) {
	case error:
		e.Value = x.Error()
		var ve *reflect.ValueError
		switch {
		case errors.As(x, &re):
			// Go's runtime errors begin with the words of their name:
			// "runtime error: index out of range"; say them once.
			e.Name, e.Value = nameRuntime, strings.TrimPrefix(x.Error(), nameRuntime+": ")
		case errors.As(x, &ve) && ve.Kind == reflect.Invalid:
			// yaegi reaches through a nil pointer with reflect.
			e.Name, e.Value = nameRuntime, "invalid memory address or nil pointer dereference ("+x.Error()+")"
		}
	case string:
		e.Value = x
		// yaegi indexes through reflect, whose panics are strings.
		switch {
		case strings.HasPrefix(x, "reflect: ") && strings.Contains(x, "out of range"):
			e.Name, e.Value = nameRuntime, "index out of range ("+x+")"
		case x == "reflect.Value.Call: call of nil function":
			// A call of a nil func value: Go's runtime error exactly.
			e.Name, e.Value = nameRuntime, "invalid memory address or nil pointer dereference"
		}
	default:
		e.Value = fmt.Sprint(v)
	}
	e.Value = mapPositions(e.Value)
	e.Traceback = append(e.Traceback, e.Name+": "+e.Value)
	for _, f := range frames {
		f = strings.TrimSpace(mapPositions(f))
		pos, msg := splitPos(f)
		if pos == "" {
			// The function yaegi wraps a cell's statements in, at a
			// position of its own: no line of the cell to show.
			continue
		}
		msg = strings.TrimPrefix(msg, "panic: ")
		msg = strings.TrimSuffix(msg, "(...)")
		msg = hideMade(msg) // frames.go
		e.Traceback = append(e.Traceback, pos+": in "+msg)
	}
	return e
}

// os.Exit, log.Fatal and os.Args in cells.
//
// A Go program that calls os.Exit stops at once: deferred calls do not
// run and nothing more is printed. yaegi's os.Exit panics instead, so the
// deferred calls ran and the cell failed with "panic: os.Exit(3)". In a
// session, os.Exit(code) ends the cell, not the worker: the goroutine
// that called it blocks for good (so that no deferred call runs, neither
// in interpreted functions nor at the top of the cell), and Eval returns
// at once: with no error for status 0, else an *Error named "exit" whose
// value is "os.Exit(N): exit status N" (the last words as go run reports
// them). The session keeps its
// variables. log.Fatal* write their message and exit with status 1, and
// so do the Fatal methods of a *log.Logger: in cells log.Logger is
// logLogger, the real *log.Logger with those three methods replaced
// (yaegi's own wrapper lacked SetPrefix).
//
// os.Args is what a program run by go run sees without arguments: the
// program's name alone.

// exitError is what Eval returns after os.Exit(code).
func exitError(code int) error {
	if code == 0 {
		return errExitZero
	}
	v := "os.Exit(" + strconv.Itoa(code) + "): exit status " + strconv.Itoa(code)
	return &Error{Name: nameExit, Value: v, Traceback: []string{nameExit + ": " + v}}
}

// errExitZero stops the running cell after os.Exit(0); Eval reports no
// error for it.
var errExitZero = &Error{Name: nameExit, Value: "os.Exit(0): exit status 0"}
