// Package supervisor is the frontend side of the worker process that runs
// a Go session: it starts that process, relays requests and events, and
// supervises it. Only package client uses it; the kernel, gnnlab repl and
// gnnlab run go through the client.
//
// A Go program cannot survive a stack overflow, a panic in a goroutine,
// concurrent map writes or os.Exit. Keeping the session in a worker
// process lets the kernel report such a crash, start a fresh session and
// keep its connection to the notebook.
//
// The worker side, the "gnnlab worker" subcommand, is package worker: it
// reads workerproto Requests on fd 3, runs them in an interp.Session and
// writes Events on fd 4; cells print to its real stdout and stderr, which
// are pipes to the kernel.
//
// # Supervisor
//
// A Supervisor starts the worker (this executable with the argument
// "worker", or Config.Command), relays calls and their events, and passes
// the output of the pipes to Config.Output with the sync marks removed and
// every event published after the output written before it (see
// workerproto). When the worker dies unexpectedly it works out the cause
// from the last lines of stderr and the exit status (ParseCrash), shows the
// crash report with the goroutine dumps trimmed (TrimDump), starts a fresh
// worker at once, and returns a *CrashError from the call that was running.
// Crash.Kind says what killed it (a Cause: a goroutine's panic, a stack
// overflow, a signal, ...), so that callers never read the message to
// tell. Kill ends a worker on purpose, KillInterrupted one that does not
// stop after an interrupt (its crash is of kind CauseInterrupted); Restart
// replaces it without a crash.
//
// BUG(gnnlab): stderr text that starts a line with "panic: " or "fatal
// error: " is held back as a possible crash report until the cell ends, so
// a cell that prints such lines to stderr shows them late.
//
// BUG(gnnlab): the worker runs in its own process group and is killed with
// it; on Linux it also dies with the kernel (Pdeathsig), elsewhere a killed
// kernel may leave it running until its request pipe closes.
//
// BUG(gnnlab): on Windows the package builds but no worker starts: it
// talks to the kernel over inherited file descriptors 3 and 4, which
// os/exec gives no Windows process, and Start returns an error saying so.
package supervisor
