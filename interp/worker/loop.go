package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gnnlab/gnnlab/gnnlib/interrupt"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
	"github.com/gnnlab/gnnlab/interp"
	"github.com/gnnlab/gnnlab/interp/workerproto"
	"github.com/gnnlab/gnnlab/viz/comm"
	"github.com/gnnlab/gnnlab/viz/display"
)

// ErrNoStdin is what a cell reading os.Stdin gets when its request did not
// allow input (allow_stdin false, or no cell is running).
var ErrNoStdin = errors.New("loop: this frontend does not accept input (allow_stdin is false)")

// ServeOptions configure Serve.
type ServeOptions struct {
	// Stdout and Stderr are where the session prints and where sync marks
	// go; they must be the same destinations the kernel reads. Nil means
	// os.Stdout and os.Stderr.
	Stdout, Stderr io.Writer
	// Interrupt cancels the running cell each time it receives.
	Interrupt <-chan os.Signal
	// Banner is sent with EvReady.
	Banner string
	// Comms lets the session open comms (widgets): the host relays them
	// to a Jupyter frontend. Main sets it from workerproto.CommsEnv.
	Comms bool
	// Debug makes the session debuggable and answers the debug protocol
	// (debug.go). Main sets it from workerproto.DebugEnv.
	Debug bool
}

// Main is the "gnnlab worker" subcommand: it serves requests from fd 3 and
// writes events to fd 4 until the kernel asks it to shut down or closes
// the pipe. It returns the process exit status.
func Main() int {
	reqs := os.NewFile(3, "requests")
	events := os.NewFile(4, "events")
	if reqs == nil || events == nil {
		fmt.Fprintln(os.Stderr, "loop: fds 3 and 4 are not open; this command is started by the kernel")
		return 2
	}
	tuneGC()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	opts := ServeOptions{Interrupt: sig, Comms: os.Getenv(workerproto.CommsEnv) == "1",
		Debug: os.Getenv(workerproto.DebugEnv) == "1"}
	if err := Serve(reqs, events, opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// tuneGC lets the heap grow to five times what is live before a
// collection, unless the user set GOGC or GOMEMLIMIT. The session keeps
// yaegi's symbol tables of every preloaded package alive, and with Go's
// default each cell's few allocations set off a collection that scans all
// of them: a trivial cell took 200 µs at GOGC=100 and 120 µs at 400. A
// memory limit of half the machine's RAM keeps large tensor workloads from
// growing the heap past what the machine holds.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(400)
	if total := totalRAM(); total > 0 {
		debug.SetMemoryLimit(total / 2)
	}
}

// totalRAM returns the machine's memory in bytes from /proc/meminfo, or 0.
func totalRAM() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// cancelCheck is the cancel check of gnnlib's parallel loops: an
// *interrupt.Error while the signal is raised.
func cancelCheck() error { return interrupt.Check("gnnlib: a parallel loop") }

// server is the worker side of one connection to the kernel.
type server struct {
	sess           *interp.Session
	stdout, stderr io.Writer

	evMu sync.Mutex // serialises event frames and sync marks
	ev   io.Writer
	sync uint64 // last sync mark written, under evMu

	curMu     sync.Mutex
	curID     uint64 // the request being executed, 0 when idle
	curMsgID  string // its frontend msg_id (Request.MsgID)
	curAllow  bool
	curCtx    context.Context
	curCancel context.CancelFunc
	// pendingInterrupt is an execute request cancelled before it started.
	pendingInterrupt uint64
	inputs           chan workerproto.Request // input replies
	stdinMu          sync.Mutex
	stdinBuf         []byte
	stdinEOF         bool // the frontend ended the running cell's input
	reqs             chan workerproto.Request
	readerDone       chan error
	comms            *commQueue    // the frontend's comm messages (comm.go)
	out, errOut      *streamRouter // the session's stdout and stderr (output.go)
	debug            *debugger     // the debug protocol (debug.go), nil when off
}

// Serve runs a session, answering the requests read from r with events
// written to w, until OpShutdown or the end of r.
func Serve(r io.Reader, w io.Writer, opts ServeOptions) error {
	s := &server{
		stdout:     opts.Stdout,
		stderr:     opts.Stderr,
		ev:         w,
		inputs:     make(chan workerproto.Request, 1),
		reqs:       make(chan workerproto.Request, 16),
		readerDone: make(chan error, 1),
		comms:      newCommQueue(),
	}
	// Keep the original files: a cell may reassign os.Stdout, but the
	// sync marks must reach the pipes that the kernel reads.
	if s.stdout == nil {
		s.stdout = os.Stdout
	}
	if s.stderr == nil {
		s.stderr = os.Stderr
	}
	// What a widget callback prints goes to its comm message (output.go).
	s.out = &streamRouter{s: s, name: "stdout", w: s.stdout}
	s.errOut = &streamRouter{s: s, name: "stderr", w: s.stderr}
	sess, err := interp.New(interp.Options{Stdout: s.out, Stderr: s.errOut, Stdin: &stdinReader{s}, Debuggable: opts.Debug})
	if err != nil {
		return fmt.Errorf("loop: start session: %w", err)
	}
	s.sess = sess
	defer sess.Close() // the folder of %go get's modules
	// gnnlib's parallel CPU loops stop between chunks once the session
	// has raised gnnlib/interrupt for an interrupted cell.
	prevCheck := backend.SetCancelCheck(cancelCheck)
	defer func() { backend.SetCancelCheck(prevCheck) }()
	display.SetPublisher(publisher{s})
	defer display.SetPublisher(nil)
	if opts.Comms {
		comm.SetTransport(commTransport{s})
		defer comm.SetTransport(nil)
	}
	// Without a transport the frontend's comm messages (none come) would
	// be refused by viz/comm: the goroutine runs either way.
	go s.serveComms()
	defer s.comms.close()
	if opts.Debug {
		s.debug = newDebugger(s)
		go s.debug.serve()
		defer s.debug.close()
	}

	if opts.Interrupt != nil {
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for {
				select {
				case <-opts.Interrupt:
					s.interrupt()
				case <-stop:
					return
				}
			}
		}()
	}
	go s.read(r)
	if err := s.send(workerproto.Event{Kind: workerproto.EvReady, Text: opts.Banner}); err != nil {
		return err
	}
	for req := range s.reqs {
		if req.Op == workerproto.OpShutdown {
			return s.send(workerproto.Event{ID: req.ID, Kind: workerproto.EvDone})
		}
		if err := s.handle(req); err != nil {
			return err
		}
	}
	if err := <-s.readerDone; err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("loop: read request: %w", err)
	}
	return nil
}

// read forwards requests to s.reqs; input replies go straight to the
// stdin reader, which waits for them while the main loop is in Eval.
func (s *server) read(r io.Reader) {
	defer close(s.reqs)
	for {
		var req workerproto.Request
		if err := workerproto.ReadFrame(r, &req); err != nil {
			s.readerDone <- err
			return
		}
		if req.Op == workerproto.OpInterrupt {
			s.interruptID(req.ID)
			continue
		}
		if req.Op == workerproto.OpComm {
			s.comms.push(req)
			continue
		}
		if req.Op == workerproto.OpDebug {
			if s.debug == nil {
				_ = s.send(workerproto.Event{ID: req.ID, Kind: workerproto.EvDone, Error: &workerproto.CellError{
					Name: workerproto.EnameWorkerError, Value: "this worker was started without the debugger"}})
			} else {
				s.debug.push(req)
			}
			continue
		}
		if req.Op == workerproto.OpInputReply {
			select {
			case s.inputs <- req:
			default: // nobody asked: drop the stale answer
			}
			continue
		}
		s.reqs <- req
	}
}

// send writes one event frame.
func (s *server) send(ev workerproto.Event) error {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	return s.sendLocked(ev)
}

func (s *server) sendLocked(ev workerproto.Event) error {
	if err := workerproto.WriteFrame(s.ev, ev); err != nil {
		return fmt.Errorf("loop: write event: %w", err)
	}
	return nil
}

// sendSynced writes a sync mark to stdout and stderr, then ev carrying
// its number, so the kernel publishes ev after what was printed before.
func (s *server) sendSynced(ev workerproto.Event) error {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	s.sync++
	mark := []byte(workerproto.SyncMark(s.sync))
	// A failed write means the kernel is gone; the event write reports it.
	_, _ = s.stdout.Write(mark)
	_, _ = s.stderr.Write(mark)
	ev.Sync = s.sync
	return s.sendLocked(ev)
}

// interruptID cancels request id if it runs, or marks it to be cancelled
// when it starts.
func (s *server) interruptID(id uint64) {
	s.curMu.Lock()
	defer s.curMu.Unlock()
	if s.curID == id && s.curCancel != nil {
		s.curCancel()
		return
	}
	if id > s.curID {
		s.pendingInterrupt = id
	}
}

func (s *server) interrupt() {
	s.curMu.Lock()
	defer s.curMu.Unlock()
	if s.curCancel != nil {
		s.curCancel()
	}
}

func (s *server) handle(req workerproto.Request) error {
	switch req.Op {
	case workerproto.OpExecute:
		return s.execute(req)
	case workerproto.OpComplete:
		cur := byteOffset(req.Code, req.Cursor)
		matches, start, end := s.sess.Complete(req.Code, cur)
		if matches == nil {
			matches = []string{}
		}
		return s.send(workerproto.Event{ID: req.ID, Kind: workerproto.EvDone, Complete: &workerproto.CompleteReply{
			Matches:     matches,
			CursorStart: runeOffset(req.Code, start),
			CursorEnd:   runeOffset(req.Code, end),
		}})
	case workerproto.OpInspect:
		text, found := s.sess.Inspect(req.Code, byteOffset(req.Code, req.Cursor), req.DetailLevel)
		return s.send(workerproto.Event{ID: req.ID, Kind: workerproto.EvDone, Inspect: &workerproto.InspectReply{Found: found, Text: text}})
	case workerproto.OpIsComplete:
		status, indent := s.sess.IsComplete(req.Code)
		return s.send(workerproto.Event{ID: req.ID, Kind: workerproto.EvDone, IsComplete: &workerproto.IsCompleteReply{Status: status, Indent: indent}})
	default:
		// An op from a newer kernel: answer so that the kernel never waits.
		return s.send(workerproto.Event{ID: req.ID, Kind: workerproto.EvDone, Error: &workerproto.CellError{
			Name: workerproto.EnameWorkerError, Value: fmt.Sprintf("unknown request %q", req.Op),
		}})
	}
}

func (s *server) execute(req workerproto.Request) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.curMu.Lock()
	s.curID, s.curAllow, s.curCtx, s.curCancel = req.ID, req.AllowStdin, ctx, cancel
	s.curMsgID = req.MsgID
	if s.pendingInterrupt == req.ID {
		cancel()
	}
	s.curMu.Unlock()
	defer func() {
		cancel() // first: a goroutine of the cell may wait for input under stdinMu
		s.curMu.Lock()
		s.curID, s.curAllow, s.curCtx, s.curCancel = 0, false, nil, nil
		s.curMsgID = ""
		s.curMu.Unlock()
		// Typed-ahead input belongs to this cell only.
		s.stdinMu.Lock()
		s.stdinBuf, s.stdinEOF = nil, false
		s.stdinMu.Unlock()
		if s.debug != nil {
			s.debug.cellEnded() // an interrupt may end a stopped cell
		}
	}()

	res, err := s.sess.EvalCount(ctx, req.Count, req.Code)
	if err != nil {
		if err := s.sendSynced(workerproto.Event{ID: req.ID, Kind: workerproto.EvError, Error: cellError(err)}); err != nil {
			return err
		}
		return s.send(workerproto.Event{ID: req.ID, Kind: workerproto.EvDone, Modules: s.sess.Modules(), Stuck: s.sess.Stuck()})
	}
	if res.HasValue && !req.Silent {
		b := workerproto.Bundle(res.Value)
		if err := s.sendSynced(workerproto.Event{ID: req.ID, Kind: workerproto.EvResult, Bundle: &b}); err != nil {
			return err
		}
	}
	done := workerproto.Event{ID: req.ID, Kind: workerproto.EvDone, Modules: s.sess.Modules(), Stuck: s.sess.Stuck()}
	if len(req.UserExpressions) > 0 {
		done.UserExpressions = make(map[string]map[string]any, len(req.UserExpressions))
		for name, expr := range req.UserExpressions {
			done.UserExpressions[name] = s.userExpression(ctx, expr)
		}
	}
	return s.sendSynced(done)
}

// userExpression evaluates expr in the session and returns it in the
// shape of an execute_reply's user_expressions entry.
func (s *server) userExpression(ctx context.Context, expr string) map[string]any {
	res, err := s.sess.Eval(ctx, expr)
	if err != nil {
		ce := cellError(err)
		return map[string]any{"status": "error", "ename": ce.Name, "evalue": ce.Value, "traceback": ce.Traceback}
	}
	data, meta := map[string]any{}, map[string]any{}
	if res.HasValue {
		if res.Value.Data != nil {
			data = res.Value.Data
		}
		if res.Value.Metadata != nil {
			meta = res.Value.Metadata
		}
	}
	return map[string]any{"status": "ok", "data": data, "metadata": meta}
}

// cellError turns an Eval error into the wire form.
func cellError(err error) *workerproto.CellError {
	var ie *interp.Error
	if errors.As(err, &ie) {
		tb := ie.Traceback
		if tb == nil {
			tb = []string{}
		}
		return &workerproto.CellError{Name: ie.Name, Value: ie.Value, Traceback: tb}
	}
	return &workerproto.CellError{Name: workerproto.EnameError, Value: err.Error(), Traceback: []string{err.Error()}}
}

// publisher sends display calls from cells as events of the running
// request (see outputID; ID 0 when a goroutine displays after its cell
// ended).
type publisher struct{ s *server }

func (p publisher) Display(b display.Bundle, update bool) {
	kind := workerproto.EvDisplay
	if update {
		kind = workerproto.EvUpdateDisplay
	}
	wb := workerproto.Bundle(b)
	_ = p.s.sendSynced(workerproto.Event{ID: p.s.outputID(), Kind: kind, Bundle: &wb})
}

func (p publisher) ClearOutput(wait bool) {
	_ = p.s.sendSynced(workerproto.Event{ID: p.s.outputID(), Kind: workerproto.EvClearOutput, Wait: wait})
}

// outputID is the request that a display belongs to: the comm message
// whose handler runs on the calling goroutine (a widget callback), else
// the running cell, else the comm message being delivered, else 0.
func (s *server) outputID() uint64 {
	if id := s.comms.deliveringHere(); id != 0 {
		return id
	}
	if id := s.currentID(); id != 0 {
		return id
	}
	id, _ := s.comms.current()
	return id
}

func (s *server) currentID() uint64 {
	s.curMu.Lock()
	defer s.curMu.Unlock()
	return s.curID
}

// stdinReader is the cells' os.Stdin: each time its buffer runs dry it
// asks the frontend for a line (EvInputRequest) and waits for the answer.
// An answer with EOF set ends the input: this read and the later ones of
// the cell return io.EOF.
type stdinReader struct{ s *server }

func (r *stdinReader) Read(p []byte) (int, error) {
	s := r.s
	s.stdinMu.Lock()
	defer s.stdinMu.Unlock()
	if len(s.stdinBuf) == 0 {
		if s.stdinEOF {
			return 0, io.EOF
		}
		s.curMu.Lock()
		id, allow, ctx := s.curID, s.curAllow, s.curCtx
		s.curMu.Unlock()
		if !allow {
			return 0, ErrNoStdin
		}
		if err := s.sendSynced(workerproto.Event{ID: id, Kind: workerproto.EvInputRequest}); err != nil {
			return 0, err
		}
		select {
		case in := <-s.inputs:
			if in.EOF {
				s.stdinEOF = true
				return 0, io.EOF
			}
			s.stdinBuf = []byte(in.Value + "\n")
		case <-ctx.Done():
			return 0, fmt.Errorf("loop: input: %w", ctx.Err())
		}
	}
	n := copy(p, s.stdinBuf)
	s.stdinBuf = s.stdinBuf[n:]
	return n, nil
}

// byteOffset converts a cursor counted in code points (Jupyter) to a byte
// offset into code (the session), clamped to the code.
func byteOffset(code string, runes int) int {
	if runes <= 0 {
		return 0
	}
	i := 0
	for off := range code {
		if i == runes {
			return off
		}
		i++
	}
	return len(code)
}

// runeOffset converts a byte offset into code to a count of code points.
func runeOffset(code string, off int) int {
	if off <= 0 {
		return 0
	}
	if off > len(code) {
		off = len(code)
	}
	return utf8.RuneCountInString(code[:off])
}
