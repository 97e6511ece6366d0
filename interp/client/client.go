package client

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"sync"
	"time"

	"github.com/gnnlab/gnnlab/interp/internal/magic"
	"github.com/gnnlab/gnnlab/interp/internal/supervisor"
	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// Grace is how long a cell has to stop after Interrupt before its worker
// is killed and replaced. The session itself waits up to 2 s for an
// interrupted cell to wind down before it answers (interp's stopWait),
// and a loaded machine needs some of that: killing sooner would throw
// away sessions that were stopping normally.
const Grace = 2500 * time.Millisecond

// ErrBusy is returned by Complete, Inspect and IsComplete while a cell
// runs: they answer at once rather than wait behind it.
var ErrBusy = errors.New("client: a cell is running")

// Config configures New and Start.
type Config struct {
	// Command is the worker's argv; empty means this executable with the
	// argument "worker".
	Command []string
	// Env is added to the worker's environment.
	Env []string
	// Output receives what cells print, and the notes of the frontend
	// magics ("stdout" or "stderr"). It is called from several goroutines,
	// never at the same time for one stream.
	Output func(stream, text string)
	// Orphan receives display events that arrive between cells.
	Orphan func(workerproto.Event)
	// Replaced, when set, is called after a fresh worker took the place
	// of the old one (a crash, %restart): what lived in the old session,
	// such as its comms, is gone.
	Replaced func()
	// Log receives diagnostics; nil discards them.
	Log *log.Logger
}

// Cell is a cell to run.
type Cell struct {
	Code string
	// Silent asks for no result event (Jupyter's silent); the cell still
	// counts for %replay.
	Silent bool
	// AllowStdin lets the cell read standard input (EvInputRequest).
	AllowStdin bool
	// UserExpressions are evaluated after the cell succeeded.
	UserExpressions map[string]string
	// Unlisted leaves the cell out of History (and %history).
	Unlisted bool
	// Count is the execution count the frontend shows for the cell, so
	// that its errors say cell[Count] after a worker restart too; zero
	// lets the worker number it.
	Count int
	// MsgID is the msg_id of the frontend's request for the cell; a
	// widget Output that captures the cell's output names it.
	MsgID string
}

// Result is what Execute returns for a cell.
type Result struct {
	// Error is the cell's error; nil when it succeeded.
	Error *workerproto.CellError
	// UserExpressions holds the values of Cell.UserExpressions, in the
	// shape of an execute_reply's user_expressions.
	UserExpressions map[string]map[string]any
	// Page is the documentation a cell "name?" asked for; empty when the
	// cell was no such request or nothing was found (Output then says so).
	Page string
	// Exit reports that the cell was exit or quit (see IsExit): the
	// frontend should end, as IPython's exit does. Nothing ran.
	Exit bool
}

// Entry is one entry of the history.
type Entry struct {
	N    int    // 1, 2, ... in the order run
	Code string // as typed
	OK   bool   // it ran without error
}

// Client runs cells on a worker process.
type Client struct {
	cfg Config
	sup *supervisor.Supervisor

	// workerMu is held while a cell uses the worker, so that the short
	// requests answer ErrBusy instead of waiting behind it.
	workerMu sync.Mutex

	mu        sync.Mutex
	turns     int    // cells being handled (Begin, Execute)
	sent      bool   // the running cell's code is on the worker
	runSeq    uint64 // counts runs on the worker, for the interrupt timer
	pending   bool   // an interrupt came before the cell reached the worker
	history   []Entry
	succeeded []string // cells that succeeded on the current worker
	lost      []string // cells that had succeeded on workers that died
	lastLost  int      // how many of lost the last worker to die had run
	skipped   string   // the cell supervisor.Replayable left out of lost
	crashes   int      // workers that died, during a cell or between cells
	// stdinCells holds the cells that read standard input when they ran:
	// %replay skips them (replay.go).
	stdinCells map[string]bool
	// modules is what %go get added to the session, as the worker last
	// reported it; restore says that a fresh worker lacks them (modules.go).
	modules []string
	restore bool
}

// New returns a Client whose worker is not started yet: Start launches
// it, Ready waits for its session.
func New(cfg Config) *Client {
	if cfg.Output == nil {
		cfg.Output = func(string, string) {}
	}
	if cfg.Orphan == nil {
		cfg.Orphan = func(workerproto.Event) {}
	}
	if cfg.Replaced == nil {
		cfg.Replaced = func() {}
	}
	if cfg.Log == nil {
		cfg.Log = log.New(discard{}, "", 0)
	}
	c := &Client{cfg: cfg}
	c.sup = supervisor.NewSupervisor(supervisor.Config{
		Command: cfg.Command,
		Env:     cfg.Env,
		Output:  cfg.Output,
		Orphan:  cfg.Orphan,
		Crashed: c.onCrash,
		Log:     cfg.Log,
	})
	return c
}

// Start starts a worker and waits until its session is ready.
func Start(ctx context.Context, cfg Config) (*Client, error) {
	c := New(cfg)
	if err := c.Start(); err != nil {
		return nil, err
	}
	if err := c.Ready(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Start launches the worker without waiting for its session; the first
// request waits for it.
func (c *Client) Start() error {
	if err := c.sup.Start(); err != nil {
		return fmt.Errorf("client: %w", err)
	}
	return nil
}

// Ready waits until the worker's session is up.
func (c *Client) Ready(ctx context.Context) error {
	if err := c.sup.Ready(ctx); err != nil {
		return fmt.Errorf("client: worker not ready: %w", err)
	}
	return nil
}

func ignore(workerproto.Event) {}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Close stops the worker.
func (c *Client) Close() { c.sup.Stop() }

// Begin opens a cell's turn ahead of Execute, for a frontend that does
// some work of its own first (the kernel publishes execute_input): an
// Interrupt from then on stops the cell, before it reaches the worker if
// it comes that early. end closes the turn. Execute opens its own turn,
// so a frontend without such work need not call Begin.
func (c *Client) Begin() (end func()) {
	c.mu.Lock()
	c.turns++
	if c.turns == 1 {
		c.pending = false
	}
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			c.turns--
			c.mu.Unlock()
		})
	}
}

// Execute runs cell and passes its events (EvDisplay, EvUpdateDisplay,
// EvClearOutput, EvResult, EvInputRequest) to fn, in order, each after the
// output printed before it. It runs the frontend magics itself: %history,
// %replay, %restart and "name?" (see package magic). A failed cell has
// its error in the Result; err is for failures of the machinery (ctx
// done, worker cannot start).
func (c *Client) Execute(ctx context.Context, cell Cell, fn func(workerproto.Event)) (Result, error) {
	if fn == nil {
		fn = ignore
	}
	defer c.Begin()()
	c.workerMu.Lock()
	defer c.workerMu.Unlock()
	// The cell is in the history while it runs, as in IPython, so that
	// %history lists itself.
	k := -1
	if !cell.Unlisted {
		c.mu.Lock()
		k = len(c.history)
		c.history = append(c.history, Entry{N: k + 1, Code: cell.Code})
		c.mu.Unlock()
	}
	res, err := c.execute(ctx, cell, fn)
	if k >= 0 {
		c.mu.Lock()
		c.history[k].OK = res.Error == nil && err == nil
		c.mu.Unlock()
	}
	return res, err
}

func (c *Client) execute(ctx context.Context, cell Cell, fn func(workerproto.Event)) (Result, error) {
	if name, detail, ok := magic.Page(cell.Code); ok {
		return c.page(ctx, name, detail)
	}
	if name, _, ok := magic.Frontend(cell.Code); ok {
		return c.magic(ctx, name, fn)
	}
	if IsExit(cell.Code) {
		return Result{Exit: true}, nil
	}
	return c.run(ctx, cell, true, fn)
}

func (c *Client) note(text string) { c.cfg.Output("stdout", text) }

// page answers "name?" with the documentation of name.
func (c *Client) page(ctx context.Context, name string, detail int) (Result, error) {
	ev, err := c.sup.Call(ctx, workerproto.Request{Op: workerproto.OpInspect, Code: name, Cursor: len([]rune(name)), DetailLevel: detail}, ignore)
	if err != nil {
		return Result{}, fmt.Errorf("client: %w", err)
	}
	if ev.Inspect == nil || !ev.Inspect.Found {
		c.note("No documentation found for " + name + ".\n")
		return Result{}, nil
	}
	return Result{Page: ev.Inspect.Text}, nil
}

func (c *Client) magic(ctx context.Context, name string, fn func(workerproto.Event)) (Result, error) {
	switch name {
	case "history":
		c.mu.Lock()
		h := append([]Entry(nil), c.history...)
		c.mu.Unlock()
		var b strings.Builder
		for _, e := range h {
			lines := strings.Split(e.Code, "\n")
			fmt.Fprintf(&b, "%3d: %s\n", e.N, lines[0])
			for _, l := range lines[1:] {
				fmt.Fprintf(&b, "     %s\n", l)
			}
		}
		c.note(b.String())
		return Result{}, nil
	case "restart":
		if err := c.sup.Restart(); err != nil {
			return Result{}, fmt.Errorf("client: %w", err)
		}
		c.mu.Lock()
		c.succeeded, c.lost = nil, nil
		c.restore = true
		c.mu.Unlock()
		c.cfg.Replaced()
		if err := c.Ready(ctx); err != nil {
			return Result{}, err
		}
		c.note("The Go session was restarted with a fresh state.\n")
		if err := c.restoreModules(ctx); err != nil {
			return Result{}, err
		}
		return Result{}, nil
	}
	return c.replay(ctx, fn)
}

// run executes cell on the worker; record keeps it for %replay when it
// succeeds.
func (c *Client) run(ctx context.Context, cell Cell, record bool, fn func(workerproto.Event)) (Result, error) {
	c.mu.Lock()
	if c.pending {
		// Interrupted before it reached the worker: do not start it.
		c.pending = false
		c.mu.Unlock()
		const msg = "the cell was interrupted before it started"
		return Result{Error: &workerproto.CellError{Name: workerproto.EnameInterrupted, Value: msg, Traceback: []string{workerproto.EnameInterrupted + ": " + msg}}}, nil
	}
	if c.restore {
		c.mu.Unlock()
		if err := c.restoreModules(ctx); err != nil {
			return Result{}, err
		}
		c.mu.Lock()
	}
	c.sent = true
	c.runSeq++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.sent = false
		c.mu.Unlock()
	}()
	req := workerproto.Request{
		Op: workerproto.OpExecute, Code: cell.Code, Silent: cell.Silent,
		AllowStdin: cell.AllowStdin, UserExpressions: cell.UserExpressions,
		Count: cell.Count, MsgID: cell.MsgID,
	}
	var ce *workerproto.CellError
	readStdin := false
	done, err := c.sup.Call(ctx, req, func(ev workerproto.Event) {
		switch ev.Kind {
		case workerproto.EvError:
			ce = ev.Error
			return
		case workerproto.EvInputRequest:
			readStdin = true
		}
		fn(ev)
	})
	var crash *supervisor.CrashError
	switch {
	case errors.As(err, &crash) && crash.Crash.Kind == supervisor.CauseInterrupted && record:
		// Killed because the interrupted cell did not stop: the state
		// comes back by itself (unstuck.go).
		ce := c.crashError(crash.Crash)
		return c.recoverState(ctx, ce, fn)
	case errors.As(err, &crash) && crash.Crash.Kind == supervisor.CauseStackOverflow && record:
		// Any Go program dies of a stack overflow, compiled cells'
		// too: the state comes back by itself (overflow.go).
		return c.recoverOverflow(ctx, crash.Crash)
	case errors.As(err, &crash):
		return Result{Error: c.crashError(crash.Crash)}, nil
	case err != nil:
		return Result{}, fmt.Errorf("client: %w", err)
	}
	if done.Stuck && record {
		// The worker answered, but its interrupted cell still runs and its
		// session would answer zeros: replace it (unstuck.go).
		if ce == nil {
			ce = done.Error
		}
		return c.restartStuck(ctx, ce, fn)
	}
	if done.Modules != nil {
		c.mu.Lock()
		c.modules = done.Modules
		c.mu.Unlock()
	}
	if ce == nil {
		ce = done.Error
	}
	if ce != nil {
		return Result{Error: ce}, nil
	}
	if record {
		c.mu.Lock()
		c.succeeded = append(c.succeeded, cell.Code)
		if readStdin {
			if c.stdinCells == nil {
				c.stdinCells = map[string]bool{}
			}
			c.stdinCells[cell.Code] = true
		}
		c.mu.Unlock()
	}
	return Result{UserExpressions: done.UserExpressions}, nil
}

// takeLastLost takes the cells that the last crash moved to lost (the
// ones the client replays itself after a stack overflow or a kill after
// an interrupt) out of lost.
func (c *Client) takeLastLost() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := min(c.lastLost, len(c.lost))
	cells := append([]string(nil), c.lost[:n]...)
	c.lost = c.lost[n:]
	c.lastLost = 0
	return cells
}

// onCrash runs after the supervisor replaced a dead worker: the cells
// that ran on it become the ones %replay restores.
func (c *Client) onCrash(cr supervisor.Crash) {
	c.mu.Lock()
	cells, skipped := supervisor.Replayable(c.succeeded, cr)
	c.lost = append(cells, c.lost...)
	c.lastLost = len(cells)
	c.skipped = skipped
	c.succeeded = nil
	c.restore = true
	c.crashes++
	inCell := c.sent
	c.mu.Unlock()
	c.cfg.Replaced()
	if !inCell {
		// No cell to fail: tell the user through the output.
		ce := c.crashError(cr)
		c.cfg.Output("stderr", strings.Join(ce.Traceback, "\n")+"\n")
	}
}

// Crashes returns how many workers have died since the client started,
// during a cell or between cells (gnnlab repl's pipe mode fails then).
func (c *Client) Crashes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.crashes
}

// crashError is the error of the cell during which the worker died.
func (c *Client) crashError(cr supervisor.Crash) *workerproto.CellError {
	c.mu.Lock()
	n, skipped := len(c.lost), c.skipped
	c.mu.Unlock()
	return cr.CellError(n, skipped)
}

// Interrupt stops the running cell: the worker is asked to cancel it,
// and if it is still running after Grace, the worker is killed and
// replaced. A cell whose turn began (Begin, Execute) but that has not
// reached the worker yet fails as interrupted without starting.
func (c *Client) Interrupt() {
	c.mu.Lock()
	inTurn, sent, seq := c.turns > 0, c.sent, c.runSeq
	if inTurn && !sent {
		c.pending = true
	}
	c.mu.Unlock()
	if !inTurn || !sent {
		return
	}
	if err := c.sup.Interrupt(); err != nil {
		c.cfg.Log.Printf("client: interrupt: %v", err)
	}
	time.AfterFunc(Grace, func() {
		c.mu.Lock()
		still := c.sent && c.runSeq == seq
		c.mu.Unlock()
		if still {
			c.sup.KillInterrupted(fmt.Sprintf("the cell did not stop within %v of the interrupt, so its worker process was killed", Grace))
		}
	})
}

// Reply answers an EvInputRequest with a line of input.
func (c *Client) Reply(line string) error {
	return c.sup.Send(workerproto.Request{Op: workerproto.OpInputReply, Value: line})
}

// ReplyEOF answers an EvInputRequest with the end of input: the cell's
// read returns io.EOF, and so do its later reads. The kernel sends it for
// an empty input_reply, the REPL for Ctrl-D.
func (c *Client) ReplyEOF() error {
	return c.sup.Send(workerproto.Request{Op: workerproto.OpInputReply, EOF: true})
}

// Comm passes a comm message of the frontend to the session's comms and
// fn the events its handlers cause (EvComm, EvDisplay, ...), until they
// are done. It neither waits for a running cell nor holds one up: the
// worker delivers comm messages during cells too, so a slider moved while
// a training loop runs reaches the loop. The returned error says why the
// session could not take the message (no such comm, a refused target).
func (c *Client) Comm(ctx context.Context, m workerproto.CommMsg, fn func(workerproto.Event)) error {
	if fn == nil {
		fn = ignore
	}
	done, err := c.sup.Call(ctx, workerproto.Request{Op: workerproto.OpComm, Comm: &m}, fn)
	if err != nil {
		return fmt.Errorf("client: comm: %w", err)
	}
	if done.Error != nil {
		return fmt.Errorf("client: comm: %s", done.Error.Value)
	}
	return nil
}

// Debug passes a request of the Jupyter debug protocol (DAP, as JSON) to
// the session's debugger and returns its response. Like Comm it neither
// waits for a running cell nor holds one up: a cell stopped at a
// breakpoint is asked for its frames this way.
func (c *Client) Debug(ctx context.Context, req []byte) ([]byte, error) {
	done, err := c.sup.Call(ctx, workerproto.Request{Op: workerproto.OpDebug, Debug: req}, ignore)
	if err != nil {
		return nil, fmt.Errorf("client: debug: %w", err)
	}
	if done.Error != nil {
		return nil, fmt.Errorf("client: debug: %s", done.Error.Value)
	}
	return done.Debug, nil
}

// short runs a request that does not wait behind a running cell.
func (c *Client) short(ctx context.Context, req workerproto.Request) (workerproto.Event, error) {
	if !c.workerMu.TryLock() {
		return workerproto.Event{}, ErrBusy
	}
	defer c.workerMu.Unlock()
	return c.sup.Call(ctx, req, ignore)
}

// Complete returns completions of code at cursor (in code points).
func (c *Client) Complete(ctx context.Context, code string, cursor int) (matches []string, start, end int, err error) {
	ev, err := c.short(ctx, workerproto.Request{Op: workerproto.OpComplete, Code: code, Cursor: cursor})
	if err != nil {
		return nil, cursor, cursor, fmt.Errorf("client: complete: %w", err)
	}
	if ev.Complete == nil {
		return nil, cursor, cursor, nil
	}
	return ev.Complete.Matches, ev.Complete.CursorStart, ev.Complete.CursorEnd, nil
}

// IsComplete reports whether code is a complete cell: "complete",
// "incomplete" (with the indent of the next line), "invalid" or
// "unknown". A frontend magic or a "name?" line is complete.
func (c *Client) IsComplete(ctx context.Context, code string) (status, indent string, err error) {
	_, _, isPage := magic.Page(code)
	if _, _, isMagic := magic.Frontend(code); isMagic || isPage {
		return "complete", "", nil
	}
	ev, err := c.short(ctx, workerproto.Request{Op: workerproto.OpIsComplete, Code: code})
	if err != nil {
		return "unknown", "", fmt.Errorf("client: is_complete: %w", err)
	}
	if ev.IsComplete == nil {
		return "unknown", "", nil
	}
	return ev.IsComplete.Status, ev.IsComplete.Indent, nil
}

// Inspect returns the documentation of the name at cursor.
func (c *Client) Inspect(ctx context.Context, code string, cursor, detail int) (string, bool, error) {
	ev, err := c.short(ctx, workerproto.Request{Op: workerproto.OpInspect, Code: code, Cursor: cursor, DetailLevel: detail})
	if err != nil {
		return "", false, fmt.Errorf("client: inspect: %w", err)
	}
	if ev.Inspect == nil {
		return "", false, nil
	}
	return ev.Inspect.Text, ev.Inspect.Found, nil
}

// History returns the cells run so far.
func (c *Client) History() []Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Entry(nil), c.history...)
}
