package client

import (
	"context"
	"fmt"

	"github.com/gnnlab/gnnlab/interp/internal/supervisor"
	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// A stack overflow.
//
// Unbounded recursion ends the worker, as it ends any Go program (in a
// compiled cell the Go runtime's limit is reached at native speed; in
// the interpreter, more slowly). The supervisor starts a fresh worker;
// the client then replays on it the cells that had succeeded, as after a
// stuck interrupt (unstuck.go), so that the session comes back by itself,
// and the cell's error names the cells replayed and those it could not
// restore. The cell that overflowed is not replayed.

// recoverOverflow replays the cells of the worker that a stack overflow
// ended; onCrash has moved them to lost.
func (c *Client) recoverOverflow(ctx context.Context, cr supervisor.Crash) (Result, error) {
	cells := c.takeLastLost()
	replayed, failed, err := c.replaySilently(ctx, cells)
	if err != nil {
		return Result{}, err
	}
	value := cr.Cause + "; the Go worker was restarted"
	tb := []string{workerproto.EnameWorkerCrashed + ": the Go worker process died: " + cr.Cause + "; a fresh worker is running."}
	switch {
	case len(cells) == 0:
		tb = append(tb, "No earlier cell had succeeded: the fresh session is as it was.")
	case len(failed) == 0:
		value += fmt.Sprintf(" and its %d earlier cells replayed", len(cells))
		tb = append(tb, fmt.Sprintf("The %d cells that had succeeded were replayed, and the state is restored:", len(replayed)))
		tb = append(tb, replayed...)
	default:
		value += fmt.Sprintf(" and %d of its %d earlier cells replayed", len(replayed), len(cells))
		tb = append(tb, fmt.Sprintf("%d of the %d cells that had succeeded were replayed:", len(replayed), len(cells)))
		tb = append(tb, replayed...)
		tb = append(tb, "These were not restored; run them again:")
		tb = append(tb, failed...)
	}
	return Result{Error: &workerproto.CellError{Name: workerproto.EnameWorkerCrashed, Value: value, Traceback: tb}}, nil
}
