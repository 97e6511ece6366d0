package interp

// This file fixes the API that the worker, the REPL and the notebook runner
// build on. The interp helper owns the implementation.

import (
	"context"
	"io"

	"github.com/gnnlab/gnnlab/viz/display"
)

// Options configure a Session.
type Options struct {
	// Stdout and Stderr receive what cells print (fmt.Print*, os.Stdout,
	// println). Nil means os.Stdout and os.Stderr. A Stdout that passes
	// its writes on to the process's standard output says so with a
	// method ProcessStdout() bool returning true (the worker's does):
	// compiled code then prints to os.Stdout as it goes, as with nil.
	Stdout, Stderr io.Writer
	// Stdin is what os.Stdin reads in cells. Nil means reading fails with
	// an error saying that the frontend does not accept input.
	Stdin io.Reader
	// Debuggable readies the session for SetDebug: the functions that
	// cells define are made under yaegi's debugger, so that a cell run
	// under it later can call them (see breakpoint.go). It costs a few
	// microseconds per cell that defines functions; off, SetDebug has no
	// effect.
	Debuggable bool
}

// Result is the outcome of a successful cell.
type Result struct {
	// HasValue reports whether the cell ended in an expression whose value
	// should be shown (execute_result).
	HasValue bool
	// Value is that value rendered as a MIME bundle (text/plain at least).
	Value display.Bundle
}

// Error is a failed cell in Jupyter's terms. Eval returns it (as *Error)
// for every failure that is the cell's fault.
type Error struct {
	Name      string   // "compile error", "panic", "runtime error", "interrupted", "unsupported"
	Value     string   // the message, without a yaegi stack trace
	Traceback []string // lines pointing at the cell and line, e.g. "cell[3]:2:5: undefined: x"
}

func (e *Error) Error() string { return e.Name + ": " + e.Value }

// EvalCount runs cell as Eval does, numbered n: its positions read
// cell[n]. Frontends pass the execution count they show (In [n]), which
// after a worker restart is ahead of the cells this session ran; n <= 0
// numbers the cell after the last one.
func (s *Session) EvalCount(ctx context.Context, n int, cell string) (Result, error) {
	if n > 0 {
		s.count = n - 1
	}
	return s.Eval(ctx, cell)
}
