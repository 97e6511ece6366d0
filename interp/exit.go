package interp

import (
	"strconv"
)

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
