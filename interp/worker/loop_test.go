package worker

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// TestServe drives the worker loop in-process through pipes, with the real
// session.
func TestServe(t *testing.T) {
	reqR, reqW := io.Pipe()
	evR, evW := io.Pipe()
	stdout, stderr := &syncBuf{b: new(bytes.Buffer)}, &syncBuf{b: new(bytes.Buffer)}
	done := make(chan error, 1)
	go func() {
		done <- Serve(reqR, evW, ServeOptions{Stdout: stdout, Stderr: stderr})
		evW.Close()
	}()
	events := make(chan workerproto.Event, 16)
	go func() {
		defer close(events)
		for {
			var ev workerproto.Event
			if err := workerproto.ReadFrame(evR, &ev); err != nil {
				return
			}
			events <- ev
		}
	}()
	next := func() workerproto.Event {
		t.Helper()
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("event stream ended")
			}
			return ev
		case <-time.After(20 * time.Second):
			t.Fatal("no event within 20s")
		}
		return workerproto.Event{}
	}
	send := func(req workerproto.Request) {
		t.Helper()
		writeRequest(t, reqW, req)
	}
	if ev := next(); ev.Kind != workerproto.EvReady {
		t.Fatalf("first event = %+v, want ready", ev)
	}
	send(workerproto.Request{ID: 1, Op: workerproto.OpIsComplete, Code: "func f() {"})
	if ev := next(); ev.Kind != workerproto.EvDone || ev.ID != 1 || ev.IsComplete == nil {
		t.Errorf("is_complete event = %+v, want done with a reply", ev)
	}
	send(workerproto.Request{ID: 2, Op: workerproto.OpExecute, Code: "x := 1 +"})
	if ev := next(); ev.Kind != workerproto.EvError || ev.Error == nil || ev.Sync == 0 {
		t.Errorf("execute(bad code) event = %+v, want a synced error", ev)
	}
	if ev := next(); ev.Kind != workerproto.EvDone || ev.ID != 2 {
		t.Errorf("execute(bad code) last event = %+v, want done", ev)
	}
	if !strings.Contains(stdout.String(), workerproto.SyncPrefix) {
		t.Errorf("stdout = %q, want a sync mark", stdout.String())
	}
	send(workerproto.Request{ID: 3, Op: workerproto.OpShutdown})
	if ev := next(); ev.Kind != workerproto.EvDone || ev.ID != 3 {
		t.Errorf("shutdown event = %+v, want done", ev)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve() = %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return within 30 s of the shutdown")
	}
}

func TestStdinRefused(t *testing.T) {
	r := &stdinReader{s: &server{inputs: make(chan workerproto.Request, 1)}}
	if _, err := r.Read(make([]byte, 8)); !errors.Is(err, ErrNoStdin) {
		t.Errorf("Read() without allow_stdin = %v, want %v", err, ErrNoStdin)
	}
}

// writeRequest writes req to the worker's request pipe. A pipe write
// blocks until the worker reads, so it fails the test when the worker has
// not taken req within 30 s, rather than hang it.
func writeRequest(t *testing.T, w io.Writer, req workerproto.Request) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- workerproto.WriteFrame(w, req) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("writing request %d (%s): %v", req.ID, req.Op, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the worker did not read request %d (%s) within 30 s", req.ID, req.Op)
	}
}

// syncBuf is a bytes.Buffer safe for the session's writers and the test.
type syncBuf struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestOffsets(t *testing.T) {
	code := "a := \"é世\"; b"
	tests := []struct{ runes, bytes int }{{0, 0}, {6, 6}, {7, 8}, {8, 11}, {12, 15}, {99, 15}}
	for _, tt := range tests {
		if got := byteOffset(code, tt.runes); got != tt.bytes {
			t.Errorf("byteOffset(%q, %d) = %d, want %d", code, tt.runes, got, tt.bytes)
		}
		if tt.runes <= 12 {
			if got := runeOffset(code, tt.bytes); got != tt.runes {
				t.Errorf("runeOffset(%q, %d) = %d, want %d", code, tt.bytes, got, tt.runes)
			}
		}
	}
}
