package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// ErrStopped is returned by Call when the worker was stopped or restarted
// on purpose while the call ran.
var ErrStopped = errors.New("worker: stopped")

// syncTimeout bounds the wait for a sync mark; it only matters when a
// cell closed or redirected the worker's own stdout or stderr.
const syncTimeout = 2 * time.Second

// drainTimeout bounds the wait for the output pipes to end after the
// worker exited; a child process of a cell may hold them open.
const drainTimeout = time.Second

// Config configures a Supervisor.
type Config struct {
	// Command is the worker's argv. Empty means this executable with the
	// argument "worker".
	Command []string
	// Env is added to the kernel's environment for the worker.
	Env []string
	// Output receives the worker's stdout and stderr text as it arrives
	// (stream is "stdout" or "stderr"), stripped of sync marks and cut at
	// UTF-8 boundaries. It is called from one goroutine per stream.
	Output func(stream, text string)
	// Orphan receives events that belong to no running call, such as a
	// display from a goroutine whose cell has finished.
	Orphan func(workerproto.Event)
	// Crashed is called after a worker died unexpectedly and a fresh one
	// was started, before the call that was running returns its
	// *CrashError.
	Crashed func(Crash)
	// Log receives diagnostics; nil means the standard logger.
	Log *log.Logger
}

// Supervisor runs the worker process of a kernel: it starts it, relays
// requests and events, restarts it after a crash and kills it.
type Supervisor struct {
	cfg    Config
	nextID atomic.Uint64

	mu     sync.Mutex
	cur    *proc
	closed bool
}

// NewSupervisor returns a Supervisor; Start launches the first worker.
func NewSupervisor(cfg Config) *Supervisor {
	if cfg.Output == nil {
		cfg.Output = func(string, string) {}
	}
	if cfg.Orphan == nil {
		cfg.Orphan = func(workerproto.Event) {}
	}
	if cfg.Crashed == nil {
		cfg.Crashed = func(Crash) {}
	}
	if cfg.Log == nil {
		cfg.Log = log.Default()
	}
	return &Supervisor{cfg: cfg}
}

// Start launches a worker. It returns once the process runs, without
// waiting for the session inside it to be ready.
func (s *Supervisor) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil && !s.cur.isDead() {
		return nil
	}
	return s.startLocked()
}

func (s *Supervisor) startLocked() error {
	p, err := s.spawn()
	if err != nil {
		return err
	}
	s.cur = p
	return nil
}

// current returns the running worker, starting one if the last one died
// and could not be replaced.
func (s *Supervisor) current() (*proc, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrStopped
	}
	if s.cur == nil {
		if err := s.startLocked(); err != nil {
			return nil, err
		}
	}
	return s.cur, nil
}

// Ready waits until the current worker's session is up.
func (s *Supervisor) Ready(ctx context.Context) error {
	p, err := s.current()
	if err != nil {
		return err
	}
	return p.waitReady(ctx)
}

// Call sends req (its ID is assigned here) and passes each event of the
// request to fn, in order, each after the output that preceded it, until
// the final EvDone, which it returns. If the worker dies first, Call
// returns a *CrashError (or ErrStopped if the death was asked for).
func (s *Supervisor) Call(ctx context.Context, req workerproto.Request, fn func(workerproto.Event)) (workerproto.Event, error) {
	p, err := s.current()
	if err != nil {
		return workerproto.Event{}, err
	}
	if err := p.waitReady(ctx); err != nil {
		return workerproto.Event{}, err
	}
	req.ID = s.nextID.Add(1)
	if req.Op == workerproto.OpExecute {
		p.lastExec.Store(req.ID)
	}
	ch := make(chan workerproto.Event, 64)
	p.mu.Lock()
	p.pending[req.ID] = ch
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.pending, req.ID)
		p.mu.Unlock()
	}()
	if err := p.send(req); err != nil {
		<-p.dead
		return workerproto.Event{}, p.deathErr()
	}
	handle := func(ev workerproto.Event) bool {
		if ev.Sync > 0 {
			p.waitMark(ev.Sync)
		}
		defer p.setDelivered(ev.Sync)
		if ev.Kind == workerproto.EvDone {
			return true
		}
		fn(ev)
		return false
	}
	for {
		select {
		case ev := <-ch:
			if handle(ev) {
				return ev, nil
			}
		case <-p.dead:
			// The event reader has finished: what is in ch is all there is.
			for {
				select {
				case ev := <-ch:
					if handle(ev) {
						return ev, nil
					}
				default:
					return workerproto.Event{}, p.deathErr()
				}
			}
		case <-ctx.Done():
			return workerproto.Event{}, ctx.Err()
		}
	}
}

// Send sends req to the current worker without waiting for an answer
// (OpInputReply).
func (s *Supervisor) Send(req workerproto.Request) error {
	p, err := s.current()
	if err != nil {
		return err
	}
	return p.send(req)
}

// Interrupt cancels the last execute request sent to the worker, whether
// it runs or has not started yet, with an OpInterrupt naming it (the
// worker reads requests while a cell runs). It sends no SIGINT: a signal
// names no cell, so one sent while a cell ran could arrive after it ended
// and cancel the next one.
func (s *Supervisor) Interrupt() error {
	p, err := s.current()
	if err != nil {
		return err
	}
	if id := p.lastExec.Load(); id != 0 {
		return p.send(workerproto.Request{ID: id, Op: workerproto.OpInterrupt})
	}
	return nil
}

// Kill kills the current worker; the death is reported as a crash whose
// cause is reason (of kind CauseKilled), and a fresh worker is started.
func (s *Supervisor) Kill(reason string) {
	if p, err := s.current(); err == nil {
		p.kill(CauseKilled, reason)
	}
}

// KillInterrupted is Kill for a worker whose interrupted cell did not
// stop: the crash is of kind CauseInterrupted, and the cell's error is
// named "interrupted".
func (s *Supervisor) KillInterrupted(reason string) {
	if p, err := s.current(); err == nil {
		p.kill(CauseInterrupted, reason)
	}
}

// Restart replaces the worker by a fresh one on purpose: calls running on
// the old one return ErrStopped, and no crash is reported.
func (s *Supervisor) Restart() error {
	s.mu.Lock()
	old := s.cur
	s.cur = nil
	err := s.startLocked()
	s.mu.Unlock()
	if old != nil {
		old.stopping.Store(true)
		old.kill(CauseKilled, "")
		<-old.dead
	}
	return err
}

// Stop asks the worker to exit, kills it if it has not within a second,
// and starts no other.
func (s *Supervisor) Stop() {
	s.mu.Lock()
	p := s.cur
	s.closed = true
	s.mu.Unlock()
	if p == nil {
		return
	}
	p.stopping.Store(true)
	_ = p.send(workerproto.Request{Op: workerproto.OpShutdown})
	select {
	case <-p.dead:
	case <-time.After(time.Second):
		p.kill(CauseKilled, "")
		<-p.dead
	}
}

// died is called by a worker's monitor after an unexpected death.
func (s *Supervisor) died(p *proc, c Crash) {
	s.mu.Lock()
	if s.cur == p && !s.closed {
		s.cur = nil
		if err := s.startLocked(); err != nil {
			s.cfg.Log.Printf("worker: restart after crash: %v", err)
		}
	}
	s.mu.Unlock()
	s.cfg.Crashed(c)
}

// proc is one worker process.
type proc struct {
	sup  *Supervisor
	cmd  *exec.Cmd
	reqW *os.File

	wmu sync.Mutex // serialises request frames

	ready    chan struct{} // closed on EvReady
	dead     chan struct{} // closed when the death is fully known
	crash    *Crash        // set before dead is closed; nil when stopped on purpose
	stopping atomic.Bool
	lastExec atomic.Uint64 // the last execute request sent

	mu         sync.Mutex
	pending    map[uint64]chan workerproto.Event
	marks      [2]uint64     // last sync mark seen on stdout, stderr
	delivered  uint64        // last sync mark whose event was passed on
	marksCh    chan struct{} // closed and replaced when marks or delivered change
	eventsEnd  chan struct{} // closed when the event pipe ends
	killReason string
	killKind   Cause
}

func (s *Supervisor) spawn() (*proc, error) {
	if err := canStart(); err != nil {
		return nil, err
	}
	argv := s.cfg.Command
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("worker: find executable: %w", err)
		}
		argv = []string{exe, "worker"}
	}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return
	}
	reqR, reqW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("worker: pipe: %w", err)
	}
	evR, evW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("worker: pipe: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("worker: pipe: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("worker: pipe: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), s.cfg.Env...)
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.ExtraFiles = []*os.File{reqR, evW} // fds 3 and 4
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("worker: start %s: %w", argv[0], err)
	}
	// The child has its copies; closing ours lets EOF mean "worker gone".
	reqR.Close()
	evW.Close()
	outW.Close()
	errW.Close()

	p := &proc{
		sup:       s,
		cmd:       cmd,
		reqW:      reqW,
		ready:     make(chan struct{}),
		dead:      make(chan struct{}),
		pending:   make(map[uint64]chan workerproto.Event),
		marksCh:   make(chan struct{}),
		eventsEnd: make(chan struct{}),
	}
	var streams sync.WaitGroup
	streams.Add(2)
	var tail tailBuffer
	var filter crashFilter
	go p.readStream(outR, 0, "stdout", nil, nil, &streams)
	go p.readStream(errR, 1, "stderr", &filter, &tail, &streams)
	go p.monitor(evR, &streams, &filter, &tail)
	return p, nil
}

// readStream relays one output pipe until EOF.
func (p *proc) readStream(r *os.File, idx int, name string, filter *crashFilter, tail *tailBuffer, wg *sync.WaitGroup) {
	defer wg.Done()
	defer r.Close()
	out := func(text string) { p.sup.cfg.Output(name, text) }
	text := out
	if filter != nil {
		text = func(s string) {
			tail.write(s)
			filter.text(s, out)
		}
	}
	mark := func(n uint64) {
		if filter != nil {
			filter.release(out)
		}
		p.setMark(idx, n)
		// What the cell prints after the mark must not overtake the
		// event the mark announced (a clear_output, a display).
		p.waitDelivered(n)
	}
	var sp splitter
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			sp.feed(buf[:n], text, mark)
		}
		if err != nil {
			if rest := sp.close(); rest != "" {
				text(rest)
			}
			// No more marks will come: release every waiter.
			p.setMark(idx, ^uint64(0))
			return
		}
	}
}

func (p *proc) setMark(idx int, n uint64) {
	p.mu.Lock()
	if n > p.marks[idx] {
		p.marks[idx] = n
	}
	close(p.marksCh)
	p.marksCh = make(chan struct{})
	p.mu.Unlock()
}

// setDelivered records that the event announced by sync mark n was passed
// on, which lets the output written after the mark go.
func (p *proc) setDelivered(n uint64) {
	if n == 0 {
		return
	}
	p.mu.Lock()
	if n > p.delivered {
		p.delivered = n
	}
	close(p.marksCh)
	p.marksCh = make(chan struct{})
	p.mu.Unlock()
}

// waitDelivered waits until the event of sync mark n was passed on, the
// event pipe ended, or syncTimeout passed.
func (p *proc) waitDelivered(n uint64) {
	var timeout <-chan time.Time
	for {
		p.mu.Lock()
		ok := p.delivered >= n
		ch := p.marksCh
		p.mu.Unlock()
		if ok {
			return
		}
		if timeout == nil {
			t := time.NewTimer(syncTimeout)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-ch:
		case <-p.eventsEnd:
			return
		case <-timeout:
			p.sup.cfg.Log.Printf("worker: the event of sync mark %d was not passed on; releasing output", n)
			return
		}
	}
}

// waitMark waits until both streams have passed sync mark n.
func (p *proc) waitMark(n uint64) {
	timeout := time.NewTimer(syncTimeout)
	defer timeout.Stop()
	for {
		p.mu.Lock()
		ok := p.marks[0] >= n && p.marks[1] >= n
		ch := p.marksCh
		p.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-timeout.C:
			p.sup.cfg.Log.Printf("worker: sync mark %d did not arrive on both streams; publishing anyway", n)
			return
		}
	}
}

// monitor reads events until the worker closes its event pipe, then
// works out how it ended.
func (p *proc) monitor(evR *os.File, streams *sync.WaitGroup, filter *crashFilter, tail *tailBuffer) {
	defer evR.Close()
	for {
		var ev workerproto.Event
		if err := workerproto.ReadFrame(evR, &ev); err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, os.ErrClosed) {
				p.sup.cfg.Log.Printf("worker: read event: %v", err)
				p.kill(CauseKilled, "the worker sent a malformed event: "+err.Error())
			}
			break
		}
		if ev.Kind == workerproto.EvReady {
			close(p.ready)
			continue
		}
		p.mu.Lock()
		ch := p.pending[ev.ID]
		p.mu.Unlock()
		switch {
		case ch != nil:
			ch <- ev
		case ev.Kind != workerproto.EvDone: // a done without a call: Stop's shutdown
			p.sup.cfg.Orphan(ev)
			p.setDelivered(ev.Sync)
		default:
			p.setDelivered(ev.Sync)
		}
	}
	close(p.eventsEnd)
	waitErr := p.cmd.Wait()
	p.reqW.Close()
	drained := make(chan struct{})
	go func() { streams.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainTimeout):
		// A child of the cell holds the pipes; kill what is left of the
		// process group and go on without the rest of the output.
		killGroup(p.cmd.Process)
	}
	if p.stopping.Load() {
		close(p.dead)
		return
	}
	p.mu.Lock()
	reason, kind := p.killReason, p.killKind
	p.mu.Unlock()
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		p.sup.cfg.Log.Printf("worker: wait: %v", waitErr)
	}
	// The drain is over, so the stderr goroutine no longer touches these.
	held := filter.take()
	report := held
	if report == "" {
		report = tail.String()
	}
	c := ParseCrash(report, p.cmd.ProcessState, kind, reason)
	if held != "" {
		p.sup.cfg.Output("stderr", TrimDump(held))
	}
	p.crash = &c
	p.sup.died(p, c)
	close(p.dead)
}

func (p *proc) isDead() bool {
	select {
	case <-p.dead:
		return true
	default:
		return false
	}
}

func (p *proc) deathErr() error {
	if p.crash == nil {
		return ErrStopped
	}
	return &CrashError{Crash: *p.crash}
}

func (p *proc) waitReady(ctx context.Context) error {
	select {
	case <-p.ready:
		return nil
	case <-p.dead:
		return p.deathErr()
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *proc) send(req workerproto.Request) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if err := workerproto.WriteFrame(p.reqW, req); err != nil {
		return fmt.Errorf("worker: send request: %w", err)
	}
	return nil
}

func (p *proc) kill(kind Cause, reason string) {
	p.mu.Lock()
	if p.killReason == "" {
		p.killReason, p.killKind = reason, kind
	}
	p.mu.Unlock()
	killGroup(p.cmd.Process)
}

// tailBuffer keeps the last few kilobytes of stderr, for a crash that
// printed no recognised report.
type tailBuffer struct{ b []byte }

const tailMax = 8 << 10

func (t *tailBuffer) write(s string) {
	t.b = append(t.b, s...)
	if len(t.b) > tailMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailMax:]...)
	}
}

func (t *tailBuffer) String() string { return strings.TrimLeft(string(t.b), "\x00") }
