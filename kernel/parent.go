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
// When pid is this process's parent, it counts as dead once this process
// is re-parented (a killed parent that nobody has reaped yet still
// exists, as a zombie). When it is a further ancestor (the kernel started
// through a wrapper), it counts as dead once it is gone or a zombie. A pid
// that is no ancestor (a launcher on another host) is not watched; then,
// as ipykernel does, the kernel ends when it is re-parented to init.
func WithParent(ctx context.Context, pid string) (context.Context, context.CancelFunc) {
	n, err := strconv.Atoi(strings.TrimSpace(pid))
	if err != nil || n <= 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	first := os.Getppid()
	direct, ancestor := first == n, isAncestor(n)
	go func() {
		t := time.NewTicker(parentPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			ppid := os.Getppid()
			if (direct && ppid != n) || (ancestor && !alive(n)) || (!direct && !ancestor && first != 1 && ppid == 1) {
				cancel(ErrParentDied)
				return
			}
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}

// isAncestor reports whether pid is the parent of this process or of one
// of its ancestors (read from /proc; false without it).
func isAncestor(pid int) bool {
	for p, hops := os.Getppid(), 0; p > 1 && hops < 64; hops++ {
		if p == pid {
			return true
		}
		f := statFields(p) // usage.go
		if len(f) < 2 {
			return false
		}
		p, _ = strconv.Atoi(f[1])
	}
	return false
}

// alive reports whether process pid exists and is no zombie: signal 0
// checks without sending (where signals are unsupported, FindProcess
// fails for a process that is gone).
func alive(pid int) bool {
	if f := statFields(pid); len(f) > 0 && f[0] == "Z" {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	defer p.Release()
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}
