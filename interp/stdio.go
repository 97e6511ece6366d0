package interp

import (
	"bytes"
	"io"
	"log"
	"os"
	"regexp"
	"strings"
	"sync"
)

var panicLineRE = regexp.MustCompile(`^(_\.go:)?\d+:\d+: panic: `)

// noStdin is the standard input of a session whose frontend takes none.
type noStdin struct{}

func (noStdin) Read([]byte) (int, error) { return 0, ErrNoStdin }

// errWriter is the interpreter's standard error. yaegi prints one line
// "<pos>: panic: <func>(...)" per interpreted frame while a panic unwinds;
// errWriter keeps those for the traceback and passes the rest on.
type errWriter struct {
	w      io.Writer
	mu     sync.Mutex
	frames []string
}

func (e *errWriter) Write(p []byte) (int, error) {
	if panicLineRE.Match(p) {
		e.mu.Lock()
		e.frames = append(e.frames, strings.TrimSpace(string(p)))
		e.mu.Unlock()
		return len(p), nil
	}
	return e.w.Write(p)
}

// take returns and forgets the frames collected so far.
func (e *errWriter) take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := e.frames
	e.frames = nil
	return f
}

func orStdout(w io.Writer) io.Writer {
	if w == nil {
		return os.Stdout
	}
	return w
}

// processStdout reports whether what is written to w reaches the
// process's standard output: w is os.Stdout, or says so (Options.Stdout).
func processStdout(w io.Writer) bool {
	if w == io.Writer(os.Stdout) {
		return true
	}
	p, ok := w.(interface{ ProcessStdout() bool })
	return ok && p.ProcessStdout()
}

func orStderr(w io.Writer) io.Writer {
	if w == nil {
		return os.Stderr
	}
	return w
}

// yaegi reports one of its internal errors with log.Panic("nil reflect
// type"), which the session recovers into a compile error; the standard
// logger had already written the line to the process's standard error,
// where it appeared beside the cell's error. The session drops that one
// line from the standard logger's output and passes everything else on.

var quietOnce sync.Once

// quietYaegiLog wraps the standard logger's writer, once per process.
func quietYaegiLog() {
	quietOnce.Do(func() { log.SetOutput(dropYaegiLines{log.Writer()}) })
}

type dropYaegiLines struct{ w io.Writer }

func (d dropYaegiLines) Write(p []byte) (int, error) {
	if bytes.HasSuffix(p, []byte(" nil reflect type\n")) || bytes.Equal(p, []byte("nil reflect type\n")) {
		return len(p), nil
	}
	return d.w.Write(p)
}
