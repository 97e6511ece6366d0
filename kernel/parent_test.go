package kernel_test

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/kernel"
)

func TestWithParent(t *testing.T) {
	// A stand-in parent: a process of the test's own, killed and reaped.
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := kernel.WithParent(context.Background(), strconv.Itoa(cmd.Process.Pid))
	defer cancel()
	time.Sleep(300 * time.Millisecond)
	if ctx.Err() != nil {
		t.Fatalf("WithParent: cancelled while the parent runs: %v", context.Cause(ctx))
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	select {
	case <-ctx.Done():
		if !errors.Is(context.Cause(ctx), kernel.ErrParentDied) {
			t.Errorf("WithParent cause = %v, want ErrParentDied", context.Cause(ctx))
		}
	case <-time.After(2 * time.Second):
		t.Fatal("WithParent: not cancelled 2 s after the parent died")
	}

	for _, pid := range []string{"", "0", "x"} {
		ctx, cancel := kernel.WithParent(context.Background(), pid)
		cancel()
		if ctx.Err() != nil {
			t.Errorf("WithParent(%q) is cancelled, want the context unchanged", pid)
		}
	}
}
