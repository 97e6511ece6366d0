package supervisor

import (
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// Cause is the kind of a worker's death, which decides how the user is
// told and what %replay leaves out.
type Cause int

const (
	// CauseEnded: the process ended and nothing more is known.
	CauseEnded Cause = iota
	// CauseExit: it exited with a status (os.Exit in a compiled package).
	CauseExit
	// CauseSignal: a signal killed it (SIGKILL: out of memory?).
	CauseSignal
	// CauseGoroutinePanic: a goroutine panicked (the session recovers the
	// cell's own panics, so a panic that ends the process is a goroutine's).
	CauseGoroutinePanic
	// CauseConcurrentMap: the Go runtime caught concurrent map accesses.
	CauseConcurrentMap
	// CauseStackOverflow: a goroutine's stack exceeded its limit.
	CauseStackOverflow
	// CauseFatal: another fatal error of the Go runtime.
	CauseFatal
	// CauseMemoryFault: a bad memory access (cgo, unsafe).
	CauseMemoryFault
	// CauseKilled: the supervisor killed it (Supervisor.Kill).
	CauseKilled
	// CauseInterrupted: the supervisor killed it because an interrupted
	// cell did not stop (Supervisor.KillInterrupted).
	CauseInterrupted
)

// Crash describes why a worker process died.
type Crash struct {
	// Kind is the kind of the death.
	Kind Cause
	// Cause is one line for the user: "stack overflow (infinite
	// recursion?)", "panic in a goroutine: boom", "fatal error: concurrent
	// map writes", "the worker called os.Exit(3)", ...
	Cause string
	// Output is what the worker wrote to stderr while dying, with the
	// goroutine dumps of the Go runtime trimmed.
	Output string
	// ExitCode is the exit status, or -1 when a signal ended the process.
	ExitCode int
}

// CellError is the error a front end shows for the cell during which the
// worker died; lost is the number of cells that had succeeded since the
// worker started, which %replay can run again.
// skipped, when not empty, is the cell that Replayable left out.
func (c Crash) CellError(lost int, skipped string) *workerproto.CellError {
	name := workerproto.EnameWorkerCrashed
	if c.Kind == CauseInterrupted {
		name = workerproto.EnameInterrupted
	}
	tb := []string{
		"The Go worker process died: " + c.Cause + ".",
		"A fresh worker is running; the variables, functions and imports of earlier cells are gone.",
	}
	if lost > 0 {
		tb = append(tb, fmt.Sprintf("Run %%replay to re-run the %d cells that had succeeded and restore that state.", lost))
	}
	if skipped != "" {
		tb = append(tb, "%replay leaves out the last cell that starts a goroutine, which probably panicked: "+goLine(skipped))
	}
	return &workerproto.CellError{Name: name, Value: c.Cause, Traceback: tb}
}

// FromGoroutine reports whether the crash came from a goroutine (a panic
// in one, or concurrent map writes), which can outlive the cell that
// started it.
func (c Crash) FromGoroutine() bool {
	return c.Kind == CauseGoroutinePanic || c.Kind == CauseConcurrentMap
}

// Replayable returns the cells of succeeded (in order) that %replay should
// run after crash c. A goroutine's panic surfaces after the cell that
// started it has returned, so that cell counts as succeeded, and running it
// again would crash the fresh worker too: after such a crash the last cell
// with a go statement is left out and returned as skipped.
func Replayable(succeeded []string, c Crash) (cells []string, skipped string) {
	if !c.FromGoroutine() {
		return succeeded, ""
	}
	for i := len(succeeded) - 1; i >= 0; i-- {
		if startsGoroutine(succeeded[i]) {
			cells = append(append([]string(nil), succeeded[:i]...), succeeded[i+1:]...)
			return cells, succeeded[i]
		}
	}
	return succeeded, ""
}

// goLine returns the line of code with its go statement, trimmed.
func goLine(code string) string {
	for _, l := range strings.Split(code, "\n") {
		if startsGoroutine(l) {
			return strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(code)
}

// startsGoroutine reports whether code holds a go statement.
func startsGoroutine(code string) bool {
	var sc scanner.Scanner
	sc.Init(token.NewFileSet().AddFile("", -1, len(code)), []byte(code), nil, 0)
	for {
		switch _, tok, _ := sc.Scan(); tok {
		case token.EOF:
			return false
		case token.GO:
			return true
		}
	}
}

// CrashError is returned by Supervisor.Call when the worker died during
// the call.
type CrashError struct{ Crash Crash }

func (e *CrashError) Error() string { return "worker: " + e.Crash.Cause }

// ParseCrash works out a Crash from the worker's dying stderr output, its
// process state (which may be nil) and, when the supervisor killed it, the
// kind and reason of the kill (kill is CauseKilled or CauseInterrupted;
// reason is empty if it did not kill it).
func ParseCrash(stderr string, state *os.ProcessState, kill Cause, reason string) Crash {
	c := Crash{Output: TrimDump(stderr), ExitCode: -1}
	if state != nil {
		c.ExitCode = state.ExitCode()
	}
	if reason != "" {
		c.Kind, c.Cause = kill, reason
		return c
	}
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case line == "fatal error: stack overflow":
			c.Kind, c.Cause = CauseStackOverflow, "stack overflow (infinite recursion?)"+overflowAt(stderr)
			return c
		case strings.HasPrefix(line, "fatal error: concurrent map"):
			c.Kind, c.Cause = CauseConcurrentMap, line
			return c
		case strings.HasPrefix(line, "fatal error: "):
			c.Kind, c.Cause = CauseFatal, line
			return c
		case strings.HasPrefix(line, "panic: "):
			// yaegi recovers a goroutine's panic and panics again, which Go
			// 1.26 marks "[recovered, repanicked]": not the user's doing.
			msg := strings.TrimPrefix(line, "panic: ")
			msg = strings.TrimSuffix(strings.TrimSuffix(msg, " [recovered, repanicked]"), " [recovered]")
			// Panics in the cell itself are recovered by the session, so a
			// panic that ends the process came from a goroutine.
			c.Kind, c.Cause = CauseGoroutinePanic, "panic in a goroutine: "+msg
			return c
		case strings.HasPrefix(line, "unexpected fault address"), strings.HasPrefix(line, "SIGSEGV"), strings.HasPrefix(line, "SIGBUS"):
			c.Kind, c.Cause = CauseMemoryFault, "memory fault: "+line
			return c
		}
	}
	if state == nil {
		c.Kind, c.Cause = CauseEnded, "the worker process ended"
		return c
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig := ws.Signal()
		c.Kind, c.Cause = CauseSignal, fmt.Sprintf("the worker was killed (signal: %v)", sig)
		if sig == syscall.SIGKILL {
			c.Cause += "; out of memory?"
		}
		return c
	}
	c.Kind, c.Cause = CauseExit, fmt.Sprintf("the worker exited with status %d (os.Exit(%d)?)", c.ExitCode, c.ExitCode)
	return c
}

// Cell positions in compiled code: the tier gives the compiler each
// declaration after a //line directive naming cellFile and a virtual
// line, cell N's line L being N*lineStride+L. They are package rewrite's
// CellFile and LineStride (TestCellPositions keeps them equal): importing
// it would link the interpreter's symbol tables into every front end.
const (
	cellFile   = "_.go"
	lineStride = 100000
)

// overflowAt names where a stack overflow happened in cell code: the
// function and cell line of the first frame of a compiled cell on the
// stack that overflowed, and the line of the next such frame, the call
// that recursed, as " in down at cell[2]:1, called from cell[2]:3"; ""
// when no such frame is there (an interpreted function's frames are the
// interpreter's). The Go runtime prints that goroutine's stack first,
// from the top, so the frames are in the head of the report.
func overflowAt(stderr string) string {
	lines := strings.Split(stderr, "\n")
	var at string
	for i := 1; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r")
		if !strings.HasPrefix(l, "\t") {
			continue
		}
		// "\t/dir/_.go:200003 +0x1d fp=... sp=... pc=..."
		file, _, _ := strings.Cut(strings.TrimPrefix(l, "\t"), " ")
		colon := strings.LastIndexByte(file, ':')
		if colon < 0 || filepath.Base(file[:colon]) != cellFile {
			continue
		}
		v, err := strconv.Atoi(file[colon+1:])
		if err != nil || v < lineStride {
			continue
		}
		pos := fmt.Sprintf("cell[%d]:%d", v/lineStride, v%lineStride)
		if at != "" {
			return at + ", called from " + pos
		}
		at = " in " + funcName(lines[i-1]) + " at " + pos
	}
	return at
}

// funcName is the function of a traceback line without its package
// path and arguments: "gnnlab.cells/c2_1.(*T).m(0x1)" is "(*T).m".
func funcName(line string) string {
	line = strings.TrimSpace(line)
	if i := strings.LastIndexByte(line, '('); i > 0 && strings.HasSuffix(line, ")") {
		line = line[:i]
	}
	if i := strings.LastIndexByte(line, '/'); i >= 0 {
		line = line[i+1:]
	}
	if _, rest, ok := strings.Cut(line, "."); ok {
		line = rest
	}
	return line
}

// TrimDump removes the goroutine stacks of a Go runtime crash report when
// it is long: they show the interpreter's frames, not the cell's. What is
// left names the error and says how many lines were dropped.
func TrimDump(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= 20 {
		return s
	}
	var kept []string
	dropped := 0
	inDump := false
	for _, l := range lines {
		if isDumpStart(l) {
			inDump = true
		}
		if inDump {
			dropped++
			continue
		}
		kept = append(kept, l)
	}
	for len(kept) > 0 && strings.TrimSpace(kept[len(kept)-1]) == "" {
		kept = kept[:len(kept)-1]
	}
	if len(kept) > 40 { // no dump recognised but long: keep the head
		dropped += len(kept) - 40
		kept = kept[:40]
	}
	if dropped > 0 {
		kept = append(kept, fmt.Sprintf("[%d lines of Go runtime stacks omitted]", dropped))
	}
	return strings.Join(kept, "\n") + "\n"
}

func isDumpStart(l string) bool {
	if l == "runtime stack:" {
		return true
	}
	if !strings.HasPrefix(l, "goroutine ") {
		return false
	}
	rest := strings.TrimLeft(l[len("goroutine "):], "0123456789")
	return len(rest) < len(l)-len("goroutine ") && strings.HasPrefix(rest, " [")
}
