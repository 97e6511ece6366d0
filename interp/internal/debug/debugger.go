package debug

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
	yaegi "github.com/traefik/yaegi/interp"
)

// Host is what the debugger asks of the session it debugs.
type Host interface {
	// Variables returns the session's variables, sorted by name, read
	// without running code: a cell may be stopped.
	Variables() []Variable
	// FuncAt returns the name of the function declared by a cell that
	// holds yaegi's (virtual) line v, or "".
	FuncAt(v int) string
	// Interrupting is called when a cell run under the debugger is
	// interrupted, before its goroutines are stopped; the function it
	// returns is called once they have stopped (the session sets its
	// interpreter's run id back).
	Interrupting(i *yaegi.Interpreter) func()
}

// Debugger is the debugging state of a session. Its zero value debugs
// nothing: Pin makes it able to debug an interpreter.
type Debugger struct {
	host Host
	wait time.Duration // how long an interrupted run waits for its goroutines
	// root is the debug data of the global frame of rootFor, the
	// interpreter it belongs to, set up when rootOK.
	root    rootDebug
	rootOK  bool
	rootFor *yaegi.Interpreter
	cells   map[int]string // the code of each cell run, once pinned
	// progs are the pieces that declared functions, compiled for the
	// debugger: where breakpoints in earlier cells are set.
	progs []*yaegi.Program
}

// Pin makes d able to debug i, which must not have made a function value
// yet: it gives i's global frame yaegi's debug data (see rootDebug). h is
// the session; wait bounds how long an interrupted cell waits for its
// goroutines to stop. For a yaegi whose fields it does not know, and in a
// binary built with -race, i stays undebuggable.
func (d *Debugger) Pin(i *yaegi.Interpreter, h Host, wait time.Duration) {
	if d.cells == nil {
		d.cells = map[int]string{}
	}
	d.host, d.wait = h, wait
	d.root, d.rootOK = pinRootDebug(i, wait)
	d.rootFor = i
}

// Debuggable says whether d can debug the session's interpreter i.
func (d *Debugger) Debuggable(i *yaegi.Interpreter) bool { return d.rootOK && d.rootFor == i }

// Start records code as cell n and returns the debugging state of the
// cell, or nil when it runs without the debugger (o is nil: debugging is
// off). The breakpoints are those of every cell the session has run, so
// that a function of an earlier cell stops in its own lines.
func (d *Debugger) Start(i *yaegi.Interpreter, n int, code string, o *Options) *Run {
	if d.cells != nil {
		d.cells[n] = code
	}
	if o == nil || o.Breakpoints == nil || !d.Debuggable(i) {
		return nil
	}
	r := &Run{d: d, opts: o, breaks: map[int]bool{}}
	for m, c := range d.cells {
		for _, l := range o.Breakpoints(m, c) {
			v := rewrite.VirtualLine(m, l)
			if !r.breaks[v] {
				r.breaks[v] = true
				r.lines = append(r.lines, v)
			}
		}
	}
	return r
}

// RunFor returns the run, without breakpoints, of a piece that makes a
// cell's functions (makesFuncs) while debugging is off, in a debuggable
// session, so that their frames carry the pinned debug data; nil
// otherwise: the piece runs as usual.
func (d *Debugger) RunFor(i *yaegi.Interpreter, makesFuncs bool) *Run {
	if makesFuncs && d.Debuggable(i) {
		return &Run{d: d}
	}
	return nil
}

// Run is the debugging state of one cell.
type Run struct {
	d      *Debugger
	opts   *Options
	lines  []int        // yaegi's (virtual) lines of the breakpoints
	breaks map[int]bool // the same, as a set

	mu sync.Mutex
	// The step in progress: its kind and where it began.
	stepping  bool
	stepKind  yaegi.DebugEventReason
	stepCell  int
	stepLine  int
	stepDepth int

	dbg *yaegi.Debugger // of the piece running, under mu
}

// Outcome is how a piece run under the debugger ended: its value and
// error, or the status of the os.Exit that ended it.
type Outcome struct {
	V      reflect.Value
	Err    error
	Exited bool
	Code   int
}

// Eval compiles src and runs it under yaegi's debugger. Cancelling ctx
// ends it, stopped or running (interrupted); stopped is false when it
// gave up waiting for the cell's goroutines (after the Pin's wait),
// which stay in a compiled call. A status received on exit ends the
// piece with Outcome.Exited.
func (r *Run) Eval(ctx context.Context, i *yaegi.Interpreter, src string, exit <-chan int) (o Outcome, interrupted, stopped bool) {
	prog, err := compile(i, src)
	if err != nil || prog == nil {
		return Outcome{Err: err}, false, true
	}
	terminated := make(chan struct{})
	events := func(e *yaegi.DebugEvent) {
		switch e.Reason() {
		case yaegi.DebugTerminate:
			close(terminated)
		case yaegi.DebugBreak, yaegi.DebugStepInto, yaegi.DebugStepOver, yaegi.DebugStepOut, yaegi.DebugPause, yaegi.DebugEntry:
			r.stopped(e)
		}
	}
	dctx, dcancel := context.WithCancel(context.Background())
	defer dcancel()
	dbg := i.Debug(dctx, prog, events, &yaegi.DebugOptions{GoRoutineStartAt1: true})
	r.d.root.repin(dbg)
	reqs := make([]yaegi.BreakpointRequest, len(r.lines))
	for k, l := range r.lines {
		reqs[k] = yaegi.LineBreakpoint(l)
	}
	// On this piece and every one that declared functions: the lines are
	// the cells' own (virtual) ones, which no two cells share.
	dbg.SetBreakpoints(targets(r.d.progs, prog), reqs...)
	if declaresFuncs(src) {
		r.d.progs = append(r.d.progs, prog)
	}
	r.mu.Lock()
	r.dbg = dbg
	r.mu.Unlock()
	done := make(chan Outcome, 1)
	go func() {
		v, err := dbg.Wait()
		done <- Outcome{V: v, Err: err}
	}()
	if err := dbg.Continue(1); err != nil {
		return Outcome{Err: err}, false, true
	}
	defer waitDetached(i, terminated, r.d.wait)
	select {
	case o = <-done:
		return o, false, true
	case code := <-exit:
		dcancel()
		return Outcome{Exited: true, Code: code}, false, true
	case <-ctx.Done():
	}
	// Cancelling the debugger's context wakes a stopped goroutine without
	// running the statement it stopped at (yaegi's Terminate would run
	// it), and stops the running ones as yaegi's stop does; the session
	// then sets its run id back (Host.Interrupting).
	rearm := r.d.host.Interrupting(i)
	dcancel()
	select {
	case <-terminated:
	case <-time.After(r.d.wait):
		return Outcome{}, true, false
	}
	rearm()
	return Outcome{}, true, true
}

func declaresFuncs(src string) bool {
	return strings.HasPrefix(src, "package main\n") && strings.Contains(src, "func")
}

// StaleFuncMsg is the error of a piece run under the debugger that
// called a function value made outside it by a call (a function literal
// of a statement cell, a closure returned by a function) while debugging
// was off: its frames have no debug data and yaegi's debugger
// dereferences nil.
const StaleFuncMsg = "the debugger cannot run a function value made while it was off " +
	"(a function literal of a cell, or a closure returned by a call): run the cell that makes it again with the debugger on"

// StaleFunc reports whether err, of a piece run under the debugger, is
// the one StaleFuncMsg describes.
func StaleFunc(err error) bool {
	var pv yaegi.Panic
	return errors.As(err, &pv) && strings.Contains(string(pv.Stack), "yaegi/interp.(*Debugger).enterCall")
}

// stopped runs on the stopped goroutine: it goes on by itself with a
// line step that has not left its line, and reports the other stops.
func (r *Run) stopped(e *yaegi.DebugEvent) {
	all := e.Frames(0, e.FrameDepth())
	st := &Stop{Reason: reason(e.Reason()), Thread: e.GoRoutine(), run: r, ev: e}
	for _, f := range all {
		sf := StackFrame{Name: f.Name()}
		if strings.HasPrefix(sf.Name, rewrite.Prefix) {
			continue // the function that made a cell's functions
		}
		st.frames = append(st.frames, f)
		if p := f.Position(); p.Filename == rewrite.CellFile && p.Line >= rewrite.LineStride {
			sf.Cell, sf.Line = rewrite.CellLine(p.Line)
			sf.Column = p.Column
		}
		switch sf.Name {
		case "<init>":
			sf.Name = "cell"
		case "<anonymous>":
			// The session declares a cell's functions as variables that
			// hold literals: name the frame by the declaration.
			if name := r.d.host.FuncAt(rewrite.VirtualLine(sf.Cell, sf.Line)); name != "" {
				sf.Name = name
			}
		}
		st.Frames = append(st.Frames, sf)
	}
	r.mu.Lock()
	again := false
	var kind yaegi.DebugEventReason
	if r.stepping && st.Reason == "step" {
		kind = r.stepKind
		top := StackFrame{}
		if len(st.Frames) > 0 {
			top = st.Frames[0]
		}
		switch {
		case top.Cell == 0:
			again = true // inside the session's helpers
		case kind != yaegi.DebugStepOut && top.Cell == r.stepCell && top.Line == r.stepLine && len(all) == r.stepDepth:
			again = true
		}
	}
	if st.Reason == "breakpoint" && !r.stepping {
		// yaegi clears a node's breakpoint only when another line is
		// set: a line no longer set goes on.
		if len(st.Frames) == 0 || !r.breaks[rewrite.VirtualLine(st.Frames[0].Cell, st.Frames[0].Line)] {
			again, kind = true, 0
		}
	}
	if !again {
		r.stepping = false
	}
	r.mu.Unlock()
	if again {
		go r.step(e.GoRoutine(), kind)
		return
	}
	if r.opts == nil || r.opts.Stopped == nil {
		go r.step(e.GoRoutine(), 0)
		return
	}
	r.opts.Stopped(st)
}

func reason(k yaegi.DebugEventReason) string {
	switch k {
	case yaegi.DebugBreak:
		return "breakpoint"
	case yaegi.DebugStepInto, yaegi.DebugStepOver, yaegi.DebugStepOut:
		return "step"
	case yaegi.DebugEntry:
		return "entry"
	}
	return "pause"
}

func (r *Run) resume(st *Stop, how Resume) error {
	var kind yaegi.DebugEventReason
	switch how {
	case StepOver:
		kind = yaegi.DebugStepOver
	case StepIn:
		kind = yaegi.DebugStepInto
	case StepOut:
		kind = yaegi.DebugStepOut
	}
	r.mu.Lock()
	r.stepping = kind != 0
	r.stepKind = kind
	r.stepCell, r.stepLine, r.stepDepth = 0, 0, st.ev.FrameDepth()
	if len(st.Frames) > 0 {
		r.stepCell, r.stepLine = st.Frames[0].Cell, st.Frames[0].Line
	}
	r.mu.Unlock()
	return r.step(st.Thread, kind)
}

// step resumes goroutine id: a step of kind, or continue for 0. The
// stopped goroutine may still be on its way into its wait (yaegi says
// ErrRunning until it is): step retries then, for up to the Pin's wait.
func (r *Run) step(id int, kind yaegi.DebugEventReason) error {
	r.mu.Lock()
	dbg := r.dbg
	r.mu.Unlock()
	deadline := time.Now().Add(r.d.wait)
	for {
		var err error
		if kind == 0 {
			err = dbg.Continue(id)
		} else {
			err = dbg.Step(id, kind)
		}
		if !errors.Is(err, yaegi.ErrRunning) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Microsecond)
	}
}
