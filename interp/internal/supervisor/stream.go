package supervisor

import (
	"bytes"
	"strings"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// splitter turns the raw chunks read from a worker pipe into text and
// sync marks, in order. It holds back a mark or a UTF-8 sequence cut by
// the end of a chunk until the next one completes it.
type splitter struct{ pending []byte }

// feed processes chunk, calling text and mark in stream order.
func (sp *splitter) feed(chunk []byte, text func(string), mark func(uint64)) {
	buf := append(sp.pending, chunk...)
	sp.pending = nil
	var out []byte
	flush := func() {
		if len(out) > 0 {
			text(string(out))
			out = out[:0]
		}
	}
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, 0)
		if i < 0 {
			j := workerproto.WholeRunes(buf)
			out = append(out, buf[:j]...)
			if j < len(buf) {
				sp.pending = bytes.Clone(buf[j:])
			}
			break
		}
		out = append(out, buf[:i]...)
		buf = buf[i:]
		if len(buf) < workerproto.SyncLen {
			n := min(len(buf), len(workerproto.SyncPrefix))
			if string(buf[:n]) == workerproto.SyncPrefix[:n] {
				sp.pending = bytes.Clone(buf) // maybe a mark cut in two
				break
			}
			out = append(out, buf[0])
			buf = buf[1:]
			continue
		}
		if n, ok := workerproto.ParseSyncMark(buf[:workerproto.SyncLen]); ok {
			flush()
			mark(n)
			buf = buf[workerproto.SyncLen:]
			continue
		}
		out = append(out, buf[0])
		buf = buf[1:]
	}
	flush()
}

// close returns what is still held back at the end of the stream.
func (sp *splitter) close() string {
	s := string(sp.pending)
	sp.pending = nil
	return s
}

// crashTriggers start the lines with which the Go runtime begins a crash
// report.
var crashTriggers = []string{
	"panic: ",
	"fatal error: ",
	"runtime: goroutine stack exceeds",
	"unexpected fault address",
	"SIGSEGV:",
	"SIGBUS:",
}

// maxHeld bounds the crash report kept in memory; its head names the error.
const maxHeld = 256 << 10

// crashFilter passes stderr text through until a line looks like the start
// of a Go crash report; from there it holds the text back, so that when
// the worker dies the report can be shown trimmed of its goroutine dumps.
// A sync mark proves the worker survived: release then lets the held text
// out unchanged.
type crashFilter struct {
	midLine bool   // the last text did not end with a newline
	partial string // a line start that may still become a trigger
	holding bool
	held    strings.Builder
}

func (f *crashFilter) text(s string, out func(string)) {
	s = f.partial + s
	f.partial = ""
	if f.holding {
		f.hold(s)
		return
	}
	pos := 0
	for pos < len(s) {
		rest := s[pos:]
		nl := strings.IndexByte(rest, '\n')
		line := rest
		if nl >= 0 {
			line = rest[:nl]
		}
		if !f.midLine {
			if isTrigger(line) {
				if pos > 0 {
					out(s[:pos])
				}
				f.holding = true
				f.hold(rest)
				return
			}
			if nl < 0 && mayBecomeTrigger(line) {
				if pos > 0 {
					out(s[:pos])
				}
				f.partial = line
				return
			}
		}
		if nl < 0 {
			f.midLine = true
			break
		}
		f.midLine = false
		pos += nl + 1
	}
	out(s)
}

func (f *crashFilter) hold(s string) {
	if room := maxHeld - f.held.Len(); room > 0 {
		f.held.WriteString(s[:min(len(s), room)])
	}
}

// release lets out what is held (the worker is alive after all).
func (f *crashFilter) release(out func(string)) {
	s := f.take()
	if s != "" {
		out(s)
	}
}

// take returns and forgets what is held, including a pending line start.
func (f *crashFilter) take() string {
	s := f.held.String() + f.partial
	f.held.Reset()
	f.partial = ""
	f.holding = false
	f.midLine = s != "" && !strings.HasSuffix(s, "\n")
	return s
}

func isTrigger(line string) bool {
	for _, t := range crashTriggers {
		if strings.HasPrefix(line, t) {
			return true
		}
	}
	return false
}

func mayBecomeTrigger(line string) bool {
	for _, t := range crashTriggers {
		if len(line) < len(t) && strings.HasPrefix(t, line) {
			return true
		}
	}
	return false
}
