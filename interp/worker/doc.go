// Package worker is the worker side of the kernel's two processes: the
// "gnnlab worker" subcommand (Main) and its request loop (Serve).
//
// Serve reads workerproto Requests, runs them in an interp.Session and
// writes Events. Cells print to the process's real stdout and stderr,
// which the kernel reads as pipes; before each event that must follow the
// output (display, result, error, end of cell) Serve writes a sync mark to
// both. Display calls from cells become EvDisplay, EvUpdateDisplay and
// EvClearOutput events. A cell reading os.Stdin asks the frontend for a
// line (EvInputRequest, answered by OpInputReply) when its request allowed
// input, and gets ErrNoStdin otherwise; a reply with EOF set ends the
// cell's input (io.EOF for this read and the later ones of the cell). An interrupt cancels the running
// cell's context: SIGINT (in Main), or OpInterrupt naming the request,
// which also cancels a cell that has not started yet. When the interrupted
// cell is still running in a compiled call after the session gave up
// waiting (interp.Session.Stuck), the EvDone says Stuck, and the client
// replaces this worker. Cursor positions arrive in code
// points, as Jupyter counts them, and are converted to the session's byte
// offsets and back.
//
// # Comms
//
// With ServeOptions.Comms (Main sets it when workerproto.CommsEnv is "1",
// as the kernel starts it) Serve installs a viz/comm Transport: the
// session's comm messages (widgets) leave as EvComm events of the request
// they belong to — the frontend message they answer, else the running
// cell, else the comm message whose handler runs. OpComm requests are read
// while a cell runs and delivered to viz/comm on a goroutine of their own,
// in order, each answered by EvDone after the output of its handlers; a
// panic in a handler is reported in that EvDone's Error. What a handler
// (a widget callback) prints, displays and sends on its goroutine belongs
// to its comm request, also while a cell runs: the session's stdout and
// stderr are routers (output.go) that send the comm goroutine's writes
// as EvStream events of the request and the rest to the pipes, and the
// comm Transport's Parent names the comm message there, so that an Output
// widget captures the callback's output and not the cell's. Displays
// from a handler between cells belong to its comm request too.
//
// # Debugger
//
// With ServeOptions.Debug (Main sets it when workerproto.DebugEnv is "1")
// the session is debuggable and OpDebug requests, read while a cell runs,
// are answered on a goroutine of their own (debug.go): each carries a
// request of the Jupyter debug protocol (DAP) and its EvDone the response.
// dumpCell writes a cell's code to a file in a folder of this worker named
// by JupyterLab's murmur2 hash of the code with the seed debugInfo reports;
// setBreakpoints on such a file apply to every cell with that code;
// attach turns the session's debugger on and disconnect off (resuming a
// stopped cell). A stop leaves as an EvDebug "stopped" event, after which
// threads, stackTrace (frames in the dumped files' lines), scopes (Locals
// and Globals), variables (nested values by variablesReference),
// continue, next, stepIn and stepOut answer; inspectVariables lists the
// session's variables at any time.
//
// The package sits apart from the frontend side (package client and its
// supervisor) so that the kernel does not link the interpreter through it.
// Display bundles leave as workerproto.Bundle, the same fields as
// viz/display's Bundle.
//
// BUG(gnnlab): input requests carry no prompt: a cell prints its prompt
// itself before reading os.Stdin.
package worker
