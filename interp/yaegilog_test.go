package interp

import (
	"bytes"
	"context"
	"errors"
	"log"
	"strings"
	"testing"
)

// yaegi's log.Panic("nil reflect type") line is dropped from the standard
// logger's output; other lines pass.
func TestYaegiLogQuiet(t *testing.T) {
	newTestSession(t, Options{})
	if _, ok := log.Writer().(dropYaegiLines); !ok {
		t.Fatalf("log.Writer() = %T after New, want dropYaegiLines", log.Writer())
	}
	var buf bytes.Buffer
	old := log.Writer()
	log.SetOutput(dropYaegiLines{&buf})
	defer log.SetOutput(old)
	s := newTestSession(t, Options{})
	_, err := s.Eval(context.Background(), "type G[T any] struct{ v T }\nvar g G[Z]")
	var e *Error
	if !errors.As(err, &e) || e.Name != nameCompile || !strings.Contains(e.Value, "undefined: Z") {
		t.Errorf("Eval = %v, want a compile error naming Z", err)
	}
	log.Print("other line")
	if got := buf.String(); !strings.HasSuffix(got, "other line\n") || strings.Contains(got, "nil reflect type") {
		t.Errorf("standard log output = %q, want only the other line", got)
	}
}
