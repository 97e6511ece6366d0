package workerproto

// Error names: CellError.Name, which Jupyter shows as the ename of an
// error. One vocabulary for the session, the worker, the client and the
// kernel, so that a frontend (or a test) can tell failures apart without
// reading their messages.
const (
	EnameCompile     = "compile error" // a syntax or type error of the cell
	EnamePanic       = "panic"         // the cell panicked (Value is the panic's value)
	EnameRuntime     = "runtime error" // index out of range, nil dereference, ...
	EnameInterrupted = "interrupted"   // the user interrupted the cell
	EnameUnsupported = "unsupported"   // Go that the interpreter cannot run
	EnameExit        = "exit"          // os.Exit with a non-zero status
	EnameDebugger    = "debugger"      // the debugger could not run the cell
	// EnameWorkerCrashed: the worker process died during the cell (see
	// Crash in interp/internal/supervisor).
	EnameWorkerCrashed = "worker crashed"
	// EnameWorkerError: the worker or the client could not handle the
	// request (an unknown op, a worker that does not start).
	EnameWorkerError      = "worker error"
	EnameCommError        = "comm error"        // a comm message was refused
	EnameReplayIncomplete = "replay incomplete" // %replay could not restore every cell
	EnameError            = "error"             // any other error of the session
)
