package check

import "sync/atomic"

// stop is set while the running cell is interrupted.
var stop atomic.Bool

// Interrupted is the panic value with which compiled code stops on an
// interrupt.
type Interrupted struct{}

func (Interrupted) Error() string { return "interrupted" }

// Check stops compiled code when the cell is interrupted. Generated code
// calls it at every function entry and loop back-edge; it inlines to one
// load and a branch.
func Check() {
	if stop.Load() {
		stopNow()
	}
}

//go:noinline
func stopNow() { panic(Interrupted{}) }

// Interrupt makes every running Check panic with Interrupted (on), or
// lets compiled code run again (off).
func Interrupt(on bool) { stop.Store(on) }
