package interp

import (
	"bytes"
	"io"
	"log"
	"sync"
)

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
