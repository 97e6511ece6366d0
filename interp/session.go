package interp

// STUB: replaced by the real implementation (interp helper).

import (
	"context"
	"errors"
)

// Session is one Go interpreter session: cells evaluated in order share
// their declarations and variables.
type Session struct{ opts Options }

// New starts a session with the preloaded packages.
func New(opts Options) (*Session, error) { return &Session{opts: opts}, nil }

// Eval runs one cell. Cancelling ctx interrupts it (an *Error named
// "interrupted"); the session keeps its state.
func (s *Session) Eval(ctx context.Context, cell string) (Result, error) {
	return Result{}, errors.New("interp: not implemented")
}

// Complete returns completions for code at cursor (a byte offset), and the
// byte range [start, end) of code that they replace.
func (s *Session) Complete(code string, cursor int) (matches []string, start, end int) {
	return nil, cursor, cursor
}

// Inspect returns documentation (signature and doc comment) for the
// identifier at cursor (a byte offset); detail > 0 asks for more.
func (s *Session) Inspect(code string, cursor, detail int) (text string, found bool) {
	return "", false
}

// IsComplete says whether code is a complete cell: "complete",
// "incomplete" (with the indent for the next line) or "invalid".
func (s *Session) IsComplete(code string) (status, indent string) {
	return "unknown", ""
}
