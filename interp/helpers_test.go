package interp

import (
	"context"
	"testing"
	"time"
)

func newTestSession(t testing.TB, opts Options) *Session {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// recvWithin returns what ch delivers, and fails the test naming what it
// waited for when nothing comes within d: a test that waits must never
// hang until go test's timeout.
func recvWithin[T any](t testing.TB, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("waited %v for %s", d, what)
	}
	panic("unreachable")
}

// mustEval runs a cell that must succeed, with a timeout.
func mustEval(t testing.TB, s *Session, cell string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.Eval(ctx, cell)
	if err != nil {
		t.Fatalf("Eval(%q) = %v", cell, err)
	}
	return res
}
