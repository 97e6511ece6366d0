// Package client runs cells in a gnnlab worker process for the terminal
// frontends (gnnlab repl and gnnlab run): the same session engine as the
// Jupyter kernel, behind the same Supervisor, so that a cell that crashes
// the Go runtime (os.Exit, a panic in a goroutine, a stack overflow) costs
// the session's state but never the frontend.
//
// # Cells and frontend magics
//
// Execute sends a cell to the worker and passes its events (displays,
// results, input requests) to a callback; the worker runs the session
// magics (see interp.Magics). The magics that need the list of cells run
// here: %history prints the cells run so far, %restart starts a fresh
// worker, and %replay re-runs, after a crash, the cells that had
// succeeded on the worker that died.
//
// # Interrupt
//
// Interrupt asks the worker to cancel the running cell; when the cell has
// not stopped after Grace (a compiled call that never returns), the
// worker is killed and replaced, and the cell fails as interrupted.
package client
