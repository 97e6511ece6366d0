// Package client is the one client of the gnnlab worker process, shared by
// the three frontends: the Jupyter kernel, gnnlab repl and gnnlab run. It
// drives the worker through a Supervisor, so that a cell that crashes the
// Go runtime (os.Exit, a panic in a goroutine, a stack overflow) costs the
// session's state but never the frontend, and it keeps the bookkeeping
// that every frontend needs: the cells run, those that succeeded on the
// current worker and those lost with a dead one.
//
// It imports neither the interpreter nor viz: the magic syntax comes from
// package magic and bundles travel as workerproto.Bundle, so the kernel
// process links neither yaegi nor gonum/plot.
//
// # Cells and frontend magics
//
// Execute sends a cell to the worker and passes its events (displays,
// results, input requests) to a callback; the worker runs the session
// magics. The magics that need the list of cells run here (see package
// magic): %history prints the cells run so far, %restart starts a fresh
// worker, %replay re-runs, after a crash, the cells that had succeeded on
// the worker that died, and "name?" returns the documentation of name.
// %replay skips the cells that read standard input when they ran, goes on
// past a cell that fails, and then fails itself, naming the cells not
// restored and the names they declare. A cell that is only exit or quit
// (IsExit) runs nothing: Result.Exit asks the frontend to end.
//
// Cell.Count carries the execution count the frontend shows to the
// worker, so that a cell's error positions read cell[Count].
//
// # Crashes
//
// When the worker dies, the cell that was running fails with an error
// naming the cause, and a fresh worker takes over; a crash between cells
// (a goroutine that outlived its cell) is reported on the stderr Output.
// After a stack overflow (unbounded recursion, at native speed in a
// compiled cell) the cells that had succeeded are replayed on the fresh
// worker at once, as after a stuck interrupt, and the cell's error lists
// them (overflow.go); after the other causes %replay does it on request.
//
// # Interrupt
//
// Interrupt asks the worker to cancel the running cell. The session ends
// interpreted code, channel operations and the common blocking calls
// (time.Sleep, sync.WaitGroup, HTTP requests, pipe reads, gnnlib's long
// operations) within a fraction of a second, and keeps its state. A cell
// that waits in a call the session cannot end would leave the functions
// defined before it answering zero values, so the client never goes on
// with such a worker: when the worker answers that the cell is stuck
// (workerproto.Event.Stuck), or does not answer within Grace and is
// killed, a fresh worker takes over and the cells that had succeeded are
// replayed on it at once; the cell fails as interrupted, its traceback
// listing the cells replayed and those that could not be (unstuck.go).
// An interrupt that comes after a cell's turn began (Begin) but before
// the cell reached the worker stops it before it starts.
//
// # Comms
//
// Comm passes a comm message of the frontend to the session and its
// handlers' events to a callback. It takes no turn: the worker delivers
// comm messages while a cell runs too, which is how a slider reaches a
// training loop.
//
// # Short requests
//
// Complete, Inspect and IsComplete never wait behind a running cell: they
// return ErrBusy, and the frontend answers without the worker.
package client
