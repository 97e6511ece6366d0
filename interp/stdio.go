package interp

import (
	"io"
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

func orStderr(w io.Writer) io.Writer {
	if w == nil {
		return os.Stderr
	}
	return w
}
