package client

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"sync"
	"time"

	"github.com/gnnlab/gnnlab/interp/magic"
	"github.com/gnnlab/gnnlab/interp/supervisor"
	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// Grace is how long a cell has to stop after Interrupt before its worker
// is killed.
const Grace = 2 * time.Second

// Config configures Start.
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
	// Log receives diagnostics; nil discards them.
	Log *log.Logger
}

// Cell is one entry of the history.
type Cell struct {
	N    int    // 1, 2, ... in the order run
	Code string // as typed
	OK   bool   // it ran without error
}

// Client runs cells on a worker process.
type Client struct {
	cfg Config
	sup *supervisor.Supervisor

	mu        sync.Mutex
	running   bool
	runSeq    int
	history   []Cell
	succeeded []string // cells that succeeded on the current worker
	lost      []string // cells that had succeeded on workers that died
	skipped   string   // the cell worker.Replayable left out of lost
}

// Start starts a worker and waits until its session is ready.
func Start(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.Output == nil {
		cfg.Output = func(string, string) {}
	}
	if cfg.Orphan == nil {
		cfg.Orphan = func(workerproto.Event) {}
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
	if err := c.sup.Start(); err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if err := c.sup.Ready(ctx); err != nil {
		c.sup.Stop()
		return nil, fmt.Errorf("client: worker not ready: %w", err)
	}
	return c, nil
}

func ignore(workerproto.Event) {}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Close stops the worker.
func (c *Client) Close() { c.sup.Stop() }

// Execute runs code and passes its events (EvDisplay, EvUpdateDisplay,
// EvClearOutput, EvResult, EvInputRequest) to fn, in order, each after the
// output printed before it. A failed cell returns its *CellError; err is
// for failures of the machinery (ctx done, worker cannot start).
func (c *Client) Execute(ctx context.Context, code string, allowStdin bool, fn func(workerproto.Event)) (*workerproto.CellError, error) {
	if fn == nil {
		fn = func(workerproto.Event) {}
	}
	// The cell is in the history while it runs, as in IPython, so that
	// %history lists itself.
	c.mu.Lock()
	k := len(c.history)
	c.history = append(c.history, Cell{N: k + 1, Code: code})
	c.mu.Unlock()
	ce, err := c.execute(ctx, code, allowStdin, fn)
	c.mu.Lock()
	c.history[k].OK = ce == nil && err == nil
	c.mu.Unlock()
	return ce, err
}

func (c *Client) execute(ctx context.Context, code string, allowStdin bool, fn func(workerproto.Event)) (*workerproto.CellError, error) {
	if name, args, ok := magic.Frontend(code); ok {
		return c.magic(ctx, name, args, fn)
	}
	return c.run(ctx, code, allowStdin, true, fn)
}

func (c *Client) note(text string) { c.cfg.Output("stdout", text) }

func (c *Client) magic(ctx context.Context, name, _ string, fn func(workerproto.Event)) (*workerproto.CellError, error) {
	switch name {
	case "history":
		c.mu.Lock()
		h := append([]Cell(nil), c.history...)
		c.mu.Unlock()
		var b strings.Builder
		for _, cell := range h {
			lines := strings.Split(cell.Code, "\n")
			fmt.Fprintf(&b, "%3d: %s\n", cell.N, lines[0])
			for _, l := range lines[1:] {
				fmt.Fprintf(&b, "     %s\n", l)
			}
		}
		c.note(b.String())
		return nil, nil
	case "restart":
		if err := c.sup.Restart(); err != nil {
			return nil, err
		}
		if err := c.sup.Ready(ctx); err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.succeeded, c.lost = nil, nil
		c.mu.Unlock()
		c.note("The Go session was restarted with a fresh state.\n")
		return nil, nil
	}
	return c.replay(ctx, fn)
}

// replay re-runs the cells lost in a crash, stopping at the first failure.
func (c *Client) replay(ctx context.Context, fn func(workerproto.Event)) (*workerproto.CellError, error) {
	c.mu.Lock()
	n := len(c.lost)
	c.mu.Unlock()
	if n == 0 {
		c.note("Nothing to replay: no worker has died since the session started, or its cells were replayed.\n")
		return nil, nil
	}
	c.note(fmt.Sprintf("Replaying %d cells...\n", n))
	for i := 1; ; i++ {
		c.mu.Lock()
		if len(c.lost) == 0 {
			c.mu.Unlock()
			break
		}
		code := c.lost[0]
		c.mu.Unlock()
		ce, err := c.run(ctx, code, false, false, func(ev workerproto.Event) {
			if ev.Kind != workerproto.EvResult {
				fn(ev)
			}
		})
		if err != nil {
			return nil, err
		}
		if ce != nil {
			ce.Traceback = append([]string{fmt.Sprintf("%%replay stopped at cell %d of %d:", i, n), code}, ce.Traceback...)
			return ce, nil
		}
		c.mu.Lock()
		if len(c.lost) > 0 && c.lost[0] == code {
			c.lost = c.lost[1:]
			c.succeeded = append(c.succeeded, code)
		}
		c.mu.Unlock()
	}
	c.note("Done: the state is restored.\n")
	return nil, nil
}

// run executes code on the worker; record keeps it for %replay.
func (c *Client) run(ctx context.Context, code string, allowStdin, record bool, fn func(workerproto.Event)) (*workerproto.CellError, error) {
	c.mu.Lock()
	c.running = true
	c.runSeq++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.running = false
		c.mu.Unlock()
	}()
	var ce *workerproto.CellError
	done, err := c.sup.Call(ctx, workerproto.Request{Op: workerproto.OpExecute, Code: code, AllowStdin: allowStdin}, func(ev workerproto.Event) {
		if ev.Kind == workerproto.EvError {
			ce = ev.Error
			return
		}
		fn(ev)
	})
	var crash *supervisor.CrashError
	switch {
	case errors.As(err, &crash):
		return c.crashError(crash.Crash), nil
	case err != nil:
		return nil, fmt.Errorf("client: %w", err)
	}
	if ce == nil && done.Error != nil {
		ce = done.Error
	}
	if ce == nil && record {
		c.mu.Lock()
		c.succeeded = append(c.succeeded, code)
		c.mu.Unlock()
	}
	return ce, nil
}

// onCrash runs after the supervisor replaced a dead worker.
func (c *Client) onCrash(cr supervisor.Crash) {
	c.mu.Lock()
	cells, skipped := supervisor.Replayable(c.succeeded, cr)
	c.lost = append(cells, c.lost...)
	c.skipped = skipped
	c.succeeded = nil
	inCell := c.running
	c.mu.Unlock()
	if !inCell {
		ce := c.crashError(cr)
		c.cfg.Output("stderr", strings.Join(ce.Traceback, "\n")+"\n")
	}
}

// crashError is the error of the cell during which the worker died.
func (c *Client) crashError(cr supervisor.Crash) *workerproto.CellError {
	c.mu.Lock()
	n, skipped := len(c.lost), c.skipped
	c.mu.Unlock()
	return cr.CellError(n, skipped)
}

// Interrupt cancels the running cell; if it is still running after
// Grace, its worker is killed and replaced.
func (c *Client) Interrupt() {
	c.mu.Lock()
	running, seq := c.running, c.runSeq
	c.mu.Unlock()
	if !running {
		return
	}
	if err := c.sup.Interrupt(); err != nil {
		c.cfg.Log.Printf("client: interrupt: %v", err)
	}
	time.AfterFunc(Grace, func() {
		c.mu.Lock()
		still := c.running && c.runSeq == seq
		c.mu.Unlock()
		if still {
			c.sup.Kill(fmt.Sprintf("the cell did not stop within %v of the interrupt, so its worker process was killed", Grace))
		}
	})
}

// Reply answers an EvInputRequest with a line of input.
func (c *Client) Reply(line string) error {
	return c.sup.Send(workerproto.Request{Op: workerproto.OpInputReply, Value: line})
}

// Complete returns completions of code at cursor (in code points).
func (c *Client) Complete(ctx context.Context, code string, cursor int) (matches []string, start, end int, err error) {
	ev, err := c.sup.Call(ctx, workerproto.Request{Op: workerproto.OpComplete, Code: code, Cursor: cursor}, ignore)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("client: complete: %w", err)
	}
	if ev.Complete == nil {
		return nil, cursor, cursor, nil
	}
	return ev.Complete.Matches, ev.Complete.CursorStart, ev.Complete.CursorEnd, nil
}

// IsComplete reports whether code is a complete cell: "complete",
// "incomplete" (with the indent of the next line), "invalid" or
// "unknown".
func (c *Client) IsComplete(ctx context.Context, code string) (status, indent string, err error) {
	ev, err := c.sup.Call(ctx, workerproto.Request{Op: workerproto.OpIsComplete, Code: code}, ignore)
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
	ev, err := c.sup.Call(ctx, workerproto.Request{Op: workerproto.OpInspect, Code: code, Cursor: cursor, DetailLevel: detail}, ignore)
	if err != nil {
		return "", false, fmt.Errorf("client: inspect: %w", err)
	}
	if ev.Inspect == nil {
		return "", false, nil
	}
	return ev.Inspect.Text, ev.Inspect.Found, nil
}

// History returns the cells run so far.
func (c *Client) History() []Cell {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Cell(nil), c.history...)
}
