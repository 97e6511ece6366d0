package kernel_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/kernel"
)

// TestWithParentHelper is the watching process of TestWithParent: it
// prints "watching", then "parent died" when WithParent's context ends so.
func TestWithParentHelper(t *testing.T) {
	if os.Getenv("GNNLAB_PARENT_HELPER") != "1" {
		t.Skip("run by TestWithParent")
	}
	ctx, cancel := kernel.WithParent(context.Background(), os.Getenv("JPY_PARENT_PID"))
	defer cancel()
	fmt.Println("watching")
	select {
	case <-ctx.Done():
		if errors.Is(context.Cause(ctx), kernel.ErrParentDied) {
			fmt.Println("parent died")
		}
	case <-time.After(time.Minute):
	}
}

// TestWithParent kills the process named by JPY_PARENT_PID, the watcher's
// parent or its grandparent (left unreaped, a zombie), and checks that the
// watcher notices. It polls every parentPoll (200 ms); the time it took is
// logged, and only a watcher that has not noticed in 30 s fails, since a
// loaded machine (-race, the whole suite in parallel) can delay a healthy
// one by seconds.
func TestWithParent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the shells and /proc of this test are Linux's")
	}
	helper := `"$0" -test.run=^TestWithParentHelper$ -test.v=false; true`
	tests := []struct {
		name, script string
	}{
		{"parent", `JPY_PARENT_PID=$$ ` + helper},
		{"grandparent", `JPY_PARENT_PID=$$ sh -c '` + strings.ReplaceAll(helper, `"$0"`, `"$1"`) + `' sh "$0"; true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", tt.script, os.Args[0])
			cmd.Env = append(os.Environ(), "GNNLAB_PARENT_HELPER=1")
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			lines := make(chan string, 4)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			select {
			case l := <-lines:
				if l != "watching" {
					t.Fatalf("helper printed %q, want watching", l)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the helper printed nothing within 30 s")
			}
			time.Sleep(300 * time.Millisecond) // a poll or two with the parent alive
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed := time.Now()
			select {
			case l := <-lines:
				if l != "parent died" {
					t.Fatalf("helper printed %q, want parent died", l)
				}
				t.Logf("the watcher noticed %v after the kill", time.Since(killed).Round(time.Millisecond))
			case <-time.After(30 * time.Second):
				t.Fatal("the watcher did not notice within 30 s that its parent died")
			}
		})
	}
	for _, pid := range []string{"", "0", "x"} {
		ctx, cancel := kernel.WithParent(context.Background(), pid)
		cancel()
		if ctx.Err() != nil {
			t.Errorf("WithParent(%q) is cancelled, want the context unchanged", pid)
		}
	}
}
