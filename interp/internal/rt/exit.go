package rt

import (
	"io"
	"log"
	"reflect"

	yaegi "github.com/traefik/yaegi/interp"
)

// programArgs is os.Args in cells.
var programArgs = []string{"main"}

// exitSymbols are os.Exit, os.Args and log.Fatal* and log.Logger.
func (r *Runtime) exitSymbols() yaegi.Exports {
	osExit := func(code int) {
		select {
		case r.exit <- code:
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
			"Fatal":   reflect.ValueOf(func(v ...any) { fatal(r.names.sprint(v)) }), // logprint.go
			"Fatalf":  reflect.ValueOf(func(f string, v ...any) { fatal(r.names.sprintf(f, v)) }),
			"Fatalln": reflect.ValueOf(func(v ...any) { fatal(r.names.sprintln(v)) }),
			"Logger":  reflect.ValueOf((*logLogger)(nil)),
			"New": reflect.ValueOf(func(out io.Writer, prefix string, flag int) *logLogger {
				return &logLogger{Logger: log.New(out, prefix, flag), exit: osExit, tn: &r.names}
			}),
			"Default": reflect.ValueOf(func() *logLogger { return &logLogger{Logger: log.Default(), exit: osExit, tn: &r.names} }),
		},
	}
}

// LogLoggerType is log.Logger in cells (logLogger), as the rewrites
// recognise it.
var LogLoggerType = reflect.TypeFor[logLogger]()

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
