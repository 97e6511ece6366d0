package interp

import (
	"io"
	"log"
	"reflect"
	"strconv"

	yaegi "github.com/traefik/yaegi/interp"
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

// programArgs is os.Args in cells.
var programArgs = []string{"main"}

func (s *Session) exitSymbols() yaegi.Exports {
	osExit := func(code int) {
		select {
		case s.exit <- code:
		default:
		}
		select {}
	}
	fatal := func(msg string) {
		_ = log.Output(3, msg)
		osExit(1)
	}
	args := append([]string(nil), programArgs...)
	return yaegi.Exports{
		"os/os": {
			"Exit": reflect.ValueOf(osExit),
			"Args": reflect.ValueOf(&args).Elem(),
		},
		"log/log": {
			"Fatal":   reflect.ValueOf(func(v ...any) { fatal(s.tnames.sprint(v)) }), // logprint.go
			"Fatalf":  reflect.ValueOf(func(f string, v ...any) { fatal(s.tnames.sprintf(f, v)) }),
			"Fatalln": reflect.ValueOf(func(v ...any) { fatal(s.tnames.sprintln(v)) }),
			"Logger":  reflect.ValueOf((*logLogger)(nil)),
			"New": reflect.ValueOf(func(out io.Writer, prefix string, flag int) *logLogger {
				return &logLogger{Logger: log.New(out, prefix, flag), exit: osExit, tn: &s.tnames}
			}),
			"Default": reflect.ValueOf(func() *logLogger { return &logLogger{Logger: log.Default(), exit: osExit, tn: &s.tnames} }),
		},
	}
}

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

// logLogger is log.Logger in cells: its Fatal methods end the cell as
// os.Exit(1) does in a session instead of ending the worker.
type logLogger struct {
	*log.Logger
	exit func(code int)
	tn   *typeNames // the session's, for its printing methods (logprint.go)
}

func (l *logLogger) Fatal(v ...any) { _ = l.Output(2, l.tn.sprint(v)); l.exit(1) }

func (l *logLogger) Fatalf(format string, v ...any) {
	_ = l.Output(2, l.tn.sprintf(format, v))
	l.exit(1)
}

func (l *logLogger) Fatalln(v ...any) { _ = l.Output(2, l.tn.sprintln(v)); l.exit(1) }
