package symbols

import (
	"errors"
	"io"
	"log"
	"os"
	"strconv"
)

// The extractor (github.com/traefik/yaegi/extract) writes these names in
// place of os.Exit, os.FindProcess, log.Fatal*, log.New and log.Logger, as
// yaegi's own stdlib package does: a cell must not end the worker by
// accident. The session replaces os.Exit, log.Fatal*, log.New,
// log.Default and log.Logger with its own (interp/internal/rt/exit.go), which end the
// cell; these are what a user of the tables without the session gets.

var errRestricted = errors.New("symbols: restricted in cells")

// osExit panics instead of exiting.
func osExit(code int) { panic("os.Exit(" + strconv.Itoa(code) + ")") }

// osFindProcess is os.FindProcess, except for the worker's own process.
func osFindProcess(pid int) (*os.Process, error) {
	if pid == os.Getpid() {
		return nil, errRestricted
	}
	return os.FindProcess(pid)
}

// logFatal, logFatalf and logFatalln panic after logging, instead of
// exiting.
func logFatal(v ...any)            { log.Panic(v...) }
func logFatalf(f string, v ...any) { log.Panicf(f, v...) }
func logFatalln(v ...any)          { log.Panicln(v...) }

// logLogger is log.Logger with every method of *log.Logger, except that
// its Fatal methods panic instead of exiting.
type logLogger struct {
	*log.Logger
}

// logNew is log.New returning a logLogger.
func logNew(out io.Writer, prefix string, flag int) *logLogger {
	return &logLogger{log.New(out, prefix, flag)}
}

func (l *logLogger) Fatal(v ...any)            { l.Panic(v...) }
func (l *logLogger) Fatalf(f string, v ...any) { l.Panicf(f, v...) }
func (l *logLogger) Fatalln(v ...any)          { l.Panicln(v...) }
