package client

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// A cell that does not stop.
//
// The session ends the common blocking calls of an interrupted cell
// (interp's blocking.go), but a compiled call of another kind (a lock, a
// system call, library work that does not poll gnnlib/interrupt) keeps
// the cell running. The session cannot set its run id back while the
// cell runs, so the functions defined before would answer zero values: a
// silent wrong result. The client never lets that happen: when the worker
// answers that the cell is stuck (EvDone's Stuck), or when it had to kill
// the worker because the cell did not answer within Grace, it starts a
// fresh worker and replays on it the cells that had succeeded on the old
// one, then tells the user, in the interrupted cell's error, which cells
// it replayed and which it could not restore.

// restartStuck replaces the worker whose interrupted cell is stuck and
// replays its cells; ce is the cell's error.
func (c *Client) restartStuck(ctx context.Context, ce *workerproto.CellError, fn func(workerproto.Event)) (Result, error) {
	if err := c.sup.Restart(); err != nil {
		return Result{}, fmt.Errorf("client: %w", err)
	}
	c.mu.Lock()
	cells := c.succeeded
	c.succeeded = nil
	c.restore = true
	c.mu.Unlock()
	c.cfg.Replaced()
	return c.replayInto(ctx, ce, cells, "was still running in a compiled call after the interrupt")
}

// recoverState replays the cells of a worker that was killed because its
// interrupted cell did not stop within Grace; the supervisor has started
// the fresh one and onCrash has moved the cells to lost.
func (c *Client) recoverState(ctx context.Context, ce *workerproto.CellError, fn func(workerproto.Event)) (Result, error) {
	cells := c.takeLastLost()
	return c.replayInto(ctx, ce, cells, fmt.Sprintf("did not answer within %v of the interrupt", Grace))
}

// replayInto runs cells on the fresh worker and returns the interrupted
// cell's error ce, named "interrupted", whose traceback lists what was
// replayed and what could not be restored.
func (c *Client) replayInto(ctx context.Context, ce *workerproto.CellError, cells []string, why string) (Result, error) {
	replayed, failed, err := c.replaySilently(ctx, cells)
	if err != nil {
		return Result{}, err
	}
	msg := "the cell was interrupted; it " + why + ", so the Go worker was restarted"
	tb := []string{workerproto.EnameInterrupted + ": " + msg + "."}
	switch {
	case len(cells) == 0:
		tb = append(tb, "No earlier cell had succeeded: the fresh session is as it was.")
	case len(failed) == 0:
		tb = append(tb, fmt.Sprintf("The %d cells that had succeeded were replayed, and the state is restored:", len(replayed)))
		tb = append(tb, replayed...)
	default:
		tb = append(tb, fmt.Sprintf("%d of the %d cells that had succeeded were replayed:", len(replayed), len(cells)))
		tb = append(tb, replayed...)
		tb = append(tb, "These were not restored; run them again:")
		tb = append(tb, failed...)
	}
	if ce != nil && ce.Name != workerproto.EnameInterrupted {
		tb = append(tb, "The cell's own error: "+firstLine(ce))
	}
	value := msg
	if len(cells) > 0 {
		value += fmt.Sprintf(" and %d of %d earlier cells replayed", len(replayed), len(cells))
	}
	return Result{Error: &workerproto.CellError{Name: workerproto.EnameInterrupted, Value: value, Traceback: tb}}, nil
}

// replaySilently runs cells on the fresh worker, without their output,
// and returns one line for each that was replayed and for each that was
// skipped or failed.
func (c *Client) replaySilently(ctx context.Context, cells []string) (replayed, failed []string, err error) {
	if err := c.Ready(ctx); err != nil {
		return nil, nil, err
	}
	for i, code := range cells {
		c.mu.Lock()
		stdin := c.stdinCells[code]
		c.mu.Unlock()
		line := fmt.Sprintf("  %d. %s", i+1, headLine(code))
		if stdin {
			failed = append(failed, line+" (skipped: it reads standard input)")
			continue
		}
		res, err := c.run(ctx, Cell{Code: code, Silent: true}, false, ignore)
		if err != nil {
			return nil, nil, err
		}
		if res.Error != nil {
			failed = append(failed, line+" (failed: "+firstLine(res.Error)+")")
			continue
		}
		c.mu.Lock()
		c.succeeded = append(c.succeeded, code)
		c.mu.Unlock()
		replayed = append(replayed, line)
	}
	return replayed, failed, nil
}

// headLine is the first non-blank line of code, shortened.
func headLine(code string) string {
	for _, l := range strings.Split(code, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 60 {
				l = l[:57] + "..."
			}
			if strings.Count(code, "\n") > 0 {
				l += " …"
			}
			return l
		}
	}
	return ""
}
