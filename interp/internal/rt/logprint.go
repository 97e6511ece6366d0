package rt

import (
	"fmt"
	"reflect"
)

// log's printing functions in cells.
//
// yaegi gives cells log.Print, Printf, Println and Panic* of a logger
// writing to the session's standard error (fixStdlib), which printed
// their arguments with fmt directly: a value of a session's type passed
// on as an any crashed them as it crashed fmt (fmtany.go), and the
// fmt operands of the rewrites (internal/rewrite/rewrite_fmt.go) and the type names of
// fmtnames.go were not applied. The session replaces them by functions
// that format as the session's fmt functions do (sprint, sprintf,
// sprintln) and write through that logger's Output; the rewrites treat
// their calls as those of Print, Printf and Println (fmtCall).

// sprint is fmt.Sprint as the session's fmt prints its arguments.
func (tn *typeNames) sprint(a []any) string { return fmt.Sprint(printSpaced(tn.printArgs(a))...) }

// sprintf is fmt.Sprintf as the session's fmt prints its arguments.
func (tn *typeNames) sprintf(format string, a []any) string {
	format, a = tn.fixArgs(format, tn.printArgs(a))
	return fmt.Sprintf(format, a...)
}

// sprintln is fmt.Sprintln as the session's fmt prints its arguments.
func (tn *typeNames) sprintln(a []any) string { return fmt.Sprintln(tn.printArgs(a)...) }

// logSymbols are log's Print, Printf, Println, Panic, Panicf and Panicln
// writing through output, the Output of yaegi's logger.
func (tn *typeNames) logSymbols(output func(int, string) error) map[string]reflect.Value {
	panicOut := func(s string) {
		_ = output(3, s)
		panic(s)
	}
	return map[string]reflect.Value{
		"Print":   reflect.ValueOf(func(v ...any) { _ = output(2, tn.sprint(v)) }),
		"Printf":  reflect.ValueOf(func(format string, v ...any) { _ = output(2, tn.sprintf(format, v)) }),
		"Println": reflect.ValueOf(func(v ...any) { _ = output(2, tn.sprintln(v)) }),
		"Panic":   reflect.ValueOf(func(v ...any) { panicOut(tn.sprint(v)) }),
		"Panicf":  reflect.ValueOf(func(format string, v ...any) { panicOut(tn.sprintf(format, v)) }),
		"Panicln": reflect.ValueOf(func(v ...any) { panicOut(tn.sprintln(v)) }),
	}
}

// The printing methods of log.Logger in cells (exit.go's logLogger), as
// log's functions.

func (l *logLogger) Print(v ...any) { _ = l.Output(2, l.tn.sprint(v)) }

func (l *logLogger) Printf(format string, v ...any) { _ = l.Output(2, l.tn.sprintf(format, v)) }

func (l *logLogger) Println(v ...any) { _ = l.Output(2, l.tn.sprintln(v)) }

func (l *logLogger) Panic(v ...any) { l.panic(l.tn.sprint(v)) }

func (l *logLogger) Panicf(format string, v ...any) { l.panic(l.tn.sprintf(format, v)) }

func (l *logLogger) Panicln(v ...any) { l.panic(l.tn.sprintln(v)) }

func (l *logLogger) panic(s string) {
	_ = l.Output(3, s)
	panic(s)
}
