package interp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	libinterrupt "github.com/gnnlab/gnnlab/gnnlib/interrupt"
	yaegi "github.com/traefik/yaegi/interp"
)

// Blocking calls that an interrupt ends.
//
// The session stops interpreted code by changing the run id (stop.go),
// and a channel operation of interpreted code by closing its done
// channel. A compiled call knows neither: time.Sleep(time.Minute) used to
// run out its minute, and as the cell was still inside it when the
// session gave up waiting, every function defined before answered zero
// from then on. So cells get versions of the common blocking calls that
// return when the cell is interrupted:
//
//   - time.Sleep returns early;
//   - sync.WaitGroup is the session's waitGroup, whose Wait returns;
//   - the HTTP requests of http.Get, Head, Post, PostForm,
//     http.DefaultClient and of clients that use http.DefaultTransport
//     fail with context.Canceled;
//   - a read or write of a file from os.Pipe, os.Open, os.OpenFile,
//     os.Create or os.NewFile (a pipe, a FIFO, a terminal) fails with
//     os.ErrDeadlineExceeded;
//   - gnnlib's long operations return an interrupt.Error (the session
//     raises gnnlib/interrupt's signal).
//
// Each returns into the interpreted cell, which then stops at its next
// statement. A goroutine of an earlier cell that waits in one of them at
// that moment sees the same early return (a shorter sleep, an error),
// once. A compiled call of any other kind keeps the cell running: when it
// has not returned within stopWait, the session says so (Stuck) and the
// worker is replaced and the session replayed (interp/client).

// cellStop is the signal that the blocking calls of cells wait on: fire
// cancels its context, reset makes a fresh one once the cell has ended.
type cellStop struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	files  []weak.Pointer[os.File]
}

// context returns the context that fire cancels.
func (c *cellStop) context() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx == nil {
		c.ctx, c.cancel = context.WithCancel(context.Background())
	}
	return c.ctx
}

// fire ends the blocking calls waiting now: it is called once the run id
// has changed, so the cell does not go on past them.
func (c *cellStop) fire() {
	c.context()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancel()
	now := time.Now()
	for _, w := range c.files {
		if f := w.Value(); f != nil {
			_ = f.SetDeadline(now) // os.ErrNoDeadline for a regular file
		}
	}
	libinterrupt.Raise()
}

// reset re-arms the signal after a cell, interrupted or not.
func (c *cellStop) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx == nil || c.ctx.Err() == nil {
		return
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	live := c.files[:0]
	for _, w := range c.files {
		if f := w.Value(); f != nil {
			_ = f.SetDeadline(time.Time{})
			live = append(live, w)
		}
	}
	clear(c.files[len(live):])
	c.files = live
	libinterrupt.Clear()
}

// file registers f so that fire ends its reads and writes.
func (c *cellStop) file(f *os.File) *os.File {
	if f == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.files) >= 64 && len(c.files)&(len(c.files)-1) == 0 {
		// Drop the files collected since: the list stays as long as the
		// files the cells keep.
		live := c.files[:0]
		for _, w := range c.files {
			if w.Value() != nil {
				live = append(live, w)
			}
		}
		clear(c.files[len(live):])
		c.files = live
	}
	c.files = append(c.files, weak.Make(f))
	if c.ctx != nil && c.ctx.Err() != nil {
		_ = f.SetDeadline(time.Now())
	}
	return f
}

// sleep is time.Sleep in cells.
func (c *cellStop) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.context().Done():
	}
}

// stopTransport is http.DefaultTransport in cells: a request ends when
// the cell is interrupted.
type stopTransport struct {
	c    *cellStop
	base http.RoundTripper
}

func (t stopTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(t.c.context(), cancel)
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		stop()
		cancel()
		return nil, err
	}
	resp.Body = &stopBody{ReadCloser: resp.Body, done: func() { stop(); cancel() }}
	return resp, nil
}

// stopBody releases a request's interrupt watch when its body is closed.
type stopBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *stopBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}

// waitGroup is sync.WaitGroup in cells: Wait also returns when the cell
// is interrupted. Its zero value is ready to use, as sync.WaitGroup's.
type waitGroup struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n reaches 0; nil while nobody waits
}

// Add adds delta to the counter; the waiters return when it reaches zero.
func (w *waitGroup) Add(delta int) {
	w.mu.Lock()
	w.n += delta
	n := w.n
	if n == 0 && w.zero != nil {
		close(w.zero)
		w.zero = nil
	}
	w.mu.Unlock()
	if n < 0 {
		panic("sync: negative WaitGroup counter")
	}
}

// Done decrements the counter by one.
func (w *waitGroup) Done() { w.Add(-1) }

// Wait blocks until the counter is zero or the cell is interrupted.
func (w *waitGroup) Wait() {
	w.mu.Lock()
	if w.n == 0 {
		w.mu.Unlock()
		return
	}
	if w.zero == nil {
		w.zero = make(chan struct{})
	}
	z := w.zero
	w.mu.Unlock()
	select {
	case <-z:
	case <-libinterrupt.Context().Done():
	}
}

// Go calls f in a new goroutine and adds that task to the group.
func (w *waitGroup) Go(f func()) {
	w.Add(1)
	go func() {
		defer w.Done()
		f()
	}()
}

// blockingSymbols are the interruptible versions of blocking calls.
func (s *Session) blockingSymbols() yaegi.Exports {
	c := &s.calls
	transport := http.RoundTripper(stopTransport{c: c, base: http.DefaultTransport})
	client := &http.Client{Transport: transport}
	return yaegi.Exports{
		"time/time": {"Sleep": reflect.ValueOf(c.sleep)},
		"sync/sync": {"WaitGroup": reflect.ValueOf((*waitGroup)(nil))},
		"net/http/http": {
			"DefaultTransport": reflect.ValueOf(&transport).Elem(),
			"DefaultClient":    reflect.ValueOf(&client).Elem(),
			"Get":              reflect.ValueOf(func(u string) (*http.Response, error) { return client.Get(u) }),
			"Head":             reflect.ValueOf(func(u string) (*http.Response, error) { return client.Head(u) }),
			"Post": reflect.ValueOf(func(u, contentType string, body io.Reader) (*http.Response, error) {
				return client.Post(u, contentType, body)
			}),
			"PostForm": reflect.ValueOf(func(u string, data url.Values) (*http.Response, error) { return client.PostForm(u, data) }),
		},
		"os/os": {
			"Pipe": reflect.ValueOf(func() (*os.File, *os.File, error) {
				r, w, err := os.Pipe()
				return c.file(r), c.file(w), err
			}),
			"Open": reflect.ValueOf(func(name string) (*os.File, error) {
				f, err := os.Open(name)
				return c.file(f), err
			}),
			"OpenFile": reflect.ValueOf(func(name string, flag int, perm os.FileMode) (*os.File, error) {
				f, err := os.OpenFile(name, flag, perm)
				return c.file(f), err
			}),
			"Create": reflect.ValueOf(func(name string) (*os.File, error) {
				f, err := os.Create(name)
				return c.file(f), err
			}),
			"NewFile": reflect.ValueOf(func(fd uintptr, name string) *os.File { return c.file(os.NewFile(fd, name)) }),
		},
	}
}

// Stuck reports whether a cell interrupted in this session was still
// running (in a compiled call that none of the above ends) when Eval gave
// up waiting for it. Its run id cannot be set back while it runs, so the
// functions defined before it answer zero values from then on: a session
// that is stuck must be replaced (interp/client restarts the worker and
// replays the cells that had succeeded).
func (s *Session) Stuck() bool { return s.stuck }

// cellLabel is the profiler label that the goroutine running a cell
// carries (evalStoppable sets it), and with it every goroutine the cell
// starts, which inherits its creator's labels.
const cellLabel = "gnnlab-cell"

var cellTags atomic.Uint64

// newCellTag returns the value of cellLabel for the next cell.
func newCellTag() string { return strconv.FormatUint(cellTags.Add(1), 10) }

// labelled counts the goroutines whose cellLabel is tag, from the
// goroutine profile (its debug=1 form groups goroutines by stack, with a
// count and a "# labels:" line per group).
func labelled(tag string) int {
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		return 0
	}
	want := strconv.Quote(cellLabel) + ":" + strconv.Quote(tag)
	n, count := 0, 0
	for line := range strings.Lines(b.String()) {
		if c, _, ok := strings.Cut(line, " @ "); ok {
			count, _ = strconv.Atoi(c)
			continue
		}
		if strings.HasPrefix(line, "# labels: ") && (strings.Contains(line, "{"+want+",") || strings.Contains(line, " "+want+",") || strings.Contains(line, want+"}")) {
			n += count
		}
	}
	return n
}

// leftBehind waits a moment for the goroutines of an interrupted cell to
// notice the stop and returns a line for the cell's error about those
// still running: the goroutines labelled with the cell's tag (or, for a
// cell run without one, more goroutines than the process had before the
// cell). They wait in a call that the interrupt does not end, and what
// they reference stays alive until it returns: the user should know.
func leftBehind(tag string, before int) []string {
	count := func() int {
		if tag == "" {
			return runtime.NumGoroutine() - before
		}
		return labelled(tag)
	}
	n := 0
	for range 10 {
		if n = count(); n <= 0 {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n == 1 {
		return []string{"1 goroutine that the cell started is still running: it waits in a call that the interrupt does not end, and stops when that call returns."}
	}
	return []string{fmt.Sprintf("%d goroutines that the cell started are still running: they wait in calls that the interrupt does not end, and stop when those calls return.", n)}
}
