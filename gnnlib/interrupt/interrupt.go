package interrupt

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// ErrInterrupted is what every error of an interrupted operation wraps:
// test for it with errors.Is.
var ErrInterrupted = errors.New("interrupted")

// Error is the error of an operation that stopped because the signal was
// raised. Op names the operation and how far it got.
type Error struct {
	Op string // "nn.ExplainNode: epoch 12 of 100000"
}

func (e *Error) Error() string { return e.Op + ": interrupted" }

// Is makes errors.Is(err, ErrInterrupted) true.
func (e *Error) Is(target error) bool { return target == ErrInterrupted }

var (
	raised atomic.Bool
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
)

func init() { ctx, cancel = context.WithCancel(context.Background()) }

// Raise raises the signal: Raised reports true, Check returns an *Error
// and Context's context is cancelled until Clear.
func Raise() {
	mu.Lock()
	defer mu.Unlock()
	raised.Store(true)
	cancel()
}

// Clear lowers the signal; operations started from now on run to their
// end again.
func Clear() {
	mu.Lock()
	defer mu.Unlock()
	if !raised.Load() {
		return
	}
	raised.Store(false)
	ctx, cancel = context.WithCancel(context.Background())
}

// Raised reports whether the signal is raised. It costs one atomic load:
// loops may call it on every step.
func Raised() bool { return raised.Load() }

// Check returns an *Error for op when the signal is raised, else nil.
func Check(op string) error {
	if raised.Load() {
		return &Error{Op: op}
	}
	return nil
}

// Context returns a context that is cancelled when the signal is raised
// (at once if it is raised now): pass it to a call that takes one, such
// as an HTTP request.
func Context() context.Context {
	mu.Lock()
	defer mu.Unlock()
	return ctx
}
