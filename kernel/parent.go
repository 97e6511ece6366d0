package kernel

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// parentPoll is how often WithParent checks the parent process: the kernel
// and its worker are gone within about parentPoll plus the worker's
// shutdown (at most a second).
const parentPoll = 200 * time.Millisecond

// ErrParentDied is the cause of WithParent's context when the parent died.
var ErrParentDied = errors.New("kernel: the parent process died")

// WithParent returns a context that is cancelled, with cause
// ErrParentDied, when the process named by pid dies: Jupyter front ends
// pass their process id in JPY_PARENT_PID so that a kernel does not
// outlive them (ipykernel's ParentPoller). An empty, invalid or
// non-positive pid (JPY_PARENT_PID unset or 0) returns ctx unchanged,
// with a no-op cancel.
//
// The parent counts as dead when it no longer exists, or when it was this
// process's parent at the start and this process has been re-parented (a
// killed parent that nobody has reaped yet still exists, as a zombie).
func WithParent(ctx context.Context, pid string) (context.Context, context.CancelFunc) {
	n, err := strconv.Atoi(strings.TrimSpace(pid))
	if err != nil || n <= 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	direct := os.Getppid() == n
	go func() {
		t := time.NewTicker(parentPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if (direct && os.Getppid() != n) || !alive(n) {
				cancel(ErrParentDied)
				return
			}
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}

// alive reports whether process pid exists: signal 0 checks without
// sending (where signals are unsupported, FindProcess fails for a process
// that is gone).
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	defer p.Release()
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}
