// Package interrupt is the cancellation signal of gnnlib: a notebook
// session raises it when the user interrupts a cell, and gnnlib's long
// operations poll it and return an *Error instead of running on.
//
// # Why
//
// Code compiled into the interpreter cannot be stopped from outside: a
// session interrupts interpreted code at once, but a call into a
// compiled function returns only when that function does. So the long
// operations of gnnlib check the signal between steps (an epoch of
// nn.ExplainNode, a repetition of prof.Time, a block of a download, a
// poll of a device synchronisation) and return within a fraction of a
// second of the interrupt. What they return wraps ErrInterrupted:
//
//	e, err := nn.ExplainNode(model, g, x, 0, nn.ExplainerOptions{Epochs: 100000})
//	if errors.Is(err, interrupt.ErrInterrupted) {
//		// the user interrupted the cell; e is nil, the model is unchanged
//	}
//
// An operation stops only between steps, so what it updates stays
// consistent: a model and its optimizer can be used (and trained on)
// after an interrupted call.
//
// # Who raises it
//
// The session raises the signal when a cell is interrupted and clears it
// when that cell has ended; a program outside a notebook never raises it
// unless it calls Raise itself (for instance from a SIGINT handler). The
// signal is one per process: a worker process runs one cell at a time.
package interrupt
