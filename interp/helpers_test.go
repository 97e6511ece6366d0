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
