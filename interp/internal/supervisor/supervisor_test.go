package supervisor

import (
	"context"
	"errors"
	"io"
	"log"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// recorder collects what a Supervisor reports.
type recorder struct {
	mu      sync.Mutex
	out     map[string]*strings.Builder
	crashes []Crash
}

func (r *recorder) config(mode string) Config {
	r.out = map[string]*strings.Builder{"stdout": {}, "stderr": {}}
	exe, _ := os.Executable()
	return Config{
		Command: []string{exe},
		Env:     []string{"GNNLAB_TEST_WORKER=" + mode},
		Output: func(stream, text string) {
			r.mu.Lock()
			r.out[stream].WriteString(text)
			r.mu.Unlock()
		},
		Crashed: func(c Crash) {
			r.mu.Lock()
			r.crashes = append(r.crashes, c)
			r.mu.Unlock()
		},
		Log: log.New(io.Discard, "", 0),
	}
}

func (r *recorder) stream(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.out[name].String()
	r.out[name].Reset()
	return s
}

func startFake(t *testing.T) (*Supervisor, *recorder) {
	t.Helper()
	var r recorder
	cfg := r.config("fake")
	// Under -race the fake worker's deliberate races would add reports.
	cfg.Env = append(cfg.Env, "GORACE=log_path="+t.TempDir()+"/race")
	s := NewSupervisor(cfg)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s, &r
}

func execute(t *testing.T, s *Supervisor, code string) ([]workerproto.Event, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var evs []workerproto.Event
	_, err := s.Call(ctx, workerproto.Request{Op: workerproto.OpExecute, Code: code}, func(ev workerproto.Event) {
		evs = append(evs, ev)
	})
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call(%q) timed out", code)
	}
	return evs, err
}

func TestSupervisorOutputBeforeDone(t *testing.T) {
	s, r := startFake(t)
	for _, text := range []string{"hello\n", "héllo wörld", strings.Repeat("x", 100000)} {
		if _, err := execute(t, s, "print "+text); err != nil {
			t.Fatalf("execute(print) = %v", err)
		}
		// The sync marks guarantee the output is in before Call returns.
		if got := r.stream("stdout"); got != text {
			t.Errorf("stdout after print %.20q = %.20q (%d bytes), want %d bytes", text, got, len(got), len(text))
		}
		if got := r.stream("stderr"); got != "e:"+text {
			t.Errorf("stderr after print = %.20q, want %.20q", got, "e:"+text)
		}
	}
	evs, err := execute(t, s, "display shown")
	if err != nil || len(evs) != 1 || evs[0].Kind != workerproto.EvClearOutput {
		t.Fatalf("execute(display) = %v, %v, want one clear_output event", evs, err)
	}
	if got := r.stream("stdout"); got != "shown" {
		t.Errorf("stdout after display = %q, want %q", got, "shown")
	}
}

func TestSupervisorCrash(t *testing.T) {
	tests := []struct {
		code, cause string
	}{
		{"exit 3", "exited with status 3"},
		{"goroutine-panic", "panic in a goroutine: boom"},
		{"recurse", "stack overflow"},
		{"recurse-cell", "stack overflow (infinite recursion?) in cellDown at cell[3]:2, called from cell[3]:6"},
		{"map-writes", "concurrent map"},
	}
	s, r := startFake(t)
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			_, err := execute(t, s, tt.code)
			var ce *CrashError
			if !errors.As(err, &ce) {
				t.Fatalf("execute(%q) = %v, want a *CrashError", tt.code, err)
			}
			if !strings.Contains(ce.Crash.Cause, tt.cause) {
				t.Errorf("execute(%q) cause = %q, want it to contain %q", tt.code, ce.Crash.Cause, tt.cause)
			}
			if out := r.stream("stderr"); strings.Count(out, "\n") > 60 {
				t.Errorf("execute(%q) published %d lines of stderr, want a trimmed report:\n%s", tt.code, strings.Count(out, "\n"), out)
			}
			// A fresh worker answers.
			if _, err := execute(t, s, "print again"); err != nil {
				t.Errorf("execute after %q crash = %v", tt.code, err)
			}
			r.stream("stdout")
			r.stream("stderr")
		})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.crashes) != len(tests) {
		t.Errorf("Crashed called %d times, want %d", len(r.crashes), len(tests))
	}
}

func TestSupervisorKillAndRestart(t *testing.T) {
	s, _ := startFake(t)
	done := make(chan error, 1)
	go func() {
		_, err := execute(t, s, "hang")
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // let the cell start; not an assertion
	if err := s.Interrupt(); err != nil {
		t.Fatalf("Interrupt() = %v", err)
	}
	s.Kill("did not stop")
	select {
	case err := <-done:
		var ce *CrashError
		if !errors.As(err, &ce) || ce.Crash.Cause != "did not stop" {
			t.Fatalf("execute(hang) after Kill = %v, want a crash caused by %q", err, "did not stop")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("execute(hang) did not return within 30 s of Kill")
	}
	if err := s.Restart(); err != nil {
		t.Fatalf("Restart() = %v", err)
	}
	if _, err := execute(t, s, "print ok"); err != nil {
		t.Errorf("execute after Restart = %v", err)
	}
}
