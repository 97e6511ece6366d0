package interp

import (
	"context"
	"go/token"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/gnnlab/gnnlab/interp/internal/debug"
	yaegi "github.com/traefik/yaegi/interp"
)

// The session's side of the debugger (internal/debug): the public types,
// which are the debugger's, and the Host that the debugger asks about
// the session.

// DebugOptions turn debugging on (Session.SetDebug): Breakpoints gives
// the lines where each cell stops, Stopped receives each stop.
type DebugOptions = debug.Options

// Resume says how a stopped cell goes on.
type Resume = debug.Resume

// How a stopped cell goes on (Stop.Resume).
const (
	Continue = debug.Continue // run to the next breakpoint
	StepOver = debug.StepOver // stop on the next line of this frame or a caller
	StepIn   = debug.StepIn   // stop on the next line, entering calls
	StepOut  = debug.StepOut  // stop once this frame has returned
)

// A Stop is a cell stopped by the debugger: its frames in cell lines,
// their variables (Locals), the session's (Globals), and Resume.
type Stop = debug.Stop

// StackFrame is one call of a stopped cell.
type StackFrame = debug.StackFrame

// Variable is a named value of a stopped cell.
type Variable = debug.Variable

// ErrResumed is returned by a second Resume of one Stop.
var ErrResumed = debug.ErrResumed

// debugger is the debugging state of a session, one field of Session.
type debugger struct {
	// debug is set by SetDebug; drun is the debugging state of the
	// running cell, nil when it runs without the debugger.
	debug atomic.Pointer[DebugOptions]
	drun  *debug.Run
	debug.Debugger
}

// SetDebug turns debugging on with o, or off with nil. It may be called
// while a cell runs: the cell being run keeps the mode it started with.
func (s *Session) SetDebug(o *DebugOptions) { s.dbg.debug.Store(o) }

// Variables returns the session's variables (not its functions), sorted
// by name. It reads them without running code, so it may be called while
// a cell is stopped by the debugger.
func (s *Session) Variables() []Variable {
	g := func() (g map[string]reflect.Value) {
		defer func() {
			if recover() != nil {
				g = nil
			}
		}()
		return s.i.Globals()
	}()
	return debug.Variables(g)
}

// newDebugRun returns the debugging state of cell n, or nil when it runs
// without the debugger (debugging is off).
func (s *Session) newDebugRun(n int, code string) *debug.Run {
	return s.dbg.Start(s.i, n, code, s.dbg.debug.Load())
}

// debugRunFor returns the debugger run that piece src of the running
// cell goes under, or nil to run it as usual: the cell's while debugging
// is on, and one without breakpoints for a piece that makes the cell's
// functions (frames.go) in a debuggable session, so that their frames
// carry the pinned debug data.
func (s *Session) debugRunFor(src string) *debug.Run {
	if s.dbg.drun != nil {
		return s.dbg.drun
	}
	return s.dbg.RunFor(s.i, makesFuncs(src))
}

// evalDebug runs src under the debugger run (debugRunFor), as
// evalStoppable runs it without.
func (s *Session) evalDebug(ctx context.Context, run *debug.Run, src string) (evalOutcome, bool, bool) {
	o, interrupted, stopped := run.Eval(ctx, s.i, src, s.exit)
	return evalOutcome{v: o.V, err: o.Err, exited: o.Exited, code: o.Code}, interrupted, stopped
}

// makesFuncs says whether piece src declares functions (a file that
// mentions func) or only calls the function that makes the cell's
// functions (frames.go's defSteps).
func makesFuncs(src string) bool {
	if rest, ok := strings.CutPrefix(src, blockPrefix+helperPrefix+"defs"); ok {
		return !strings.ContainsAny(rest, "\n;")
	}
	return strings.HasPrefix(src, "package main\n") && strings.Contains(src, "func")
}

// staleFuncError is the error of a piece run under the debugger that
// called a function value made while debugging was off
// (debug.StaleFuncMsg); nil for other errors.
func staleFuncError(err error) *Error {
	if !debug.StaleFunc(err) {
		return nil
	}
	return &Error{Name: nameDebugger, Value: debug.StaleFuncMsg, Traceback: []string{nameDebugger + ": " + debug.StaleFuncMsg}}
}

// debugHost is the Session as the debugger sees it (debug.Host).
type debugHost Session

func (h *debugHost) Variables() []Variable { return (*Session)(h).Variables() }

// FuncAt returns the name of the function declared by a cell that holds
// yaegi's line v, or "".
func (h *debugHost) FuncAt(v int) string {
	name := ""
	for _, r := range h.records {
		if r.tok == token.FUNC && len(r.names) > 0 && r.line <= v && v <= r.line+strings.Count(r.text, "\n") {
			name = r.names[0]
		}
	}
	return name
}

// Interrupting notes the run id of i before the debugger stops its
// goroutines, and returns what sets it back afterwards, as
// evalStoppable does (stop.go).
func (h *debugHost) Interrupting(i *yaegi.Interpreter) func() {
	st, ok := stopOf(i)
	if !ok {
		return func() {}
	}
	before := atomic.LoadUint64(st.id)
	return func() { rearm(st.id, before) }
}
