package interp

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	yaegi "github.com/traefik/yaegi/interp"
)

// Debugging cells.
//
// With SetDebug, a cell for which DebugOptions.Breakpoints returns lines
// runs under yaegi's debugger: each piece of source the session gives
// yaegi for it is compiled, its nodes on those lines (the //line
// directives of the pieces carry the cell's own lines) get breakpoints,
// and it runs in yaegi's Debug. A stop reaches DebugOptions.Stopped as a
// *Stop, which the cell waits on until it is resumed. A cell without
// breakpoints, or any cell while SetDebug is off, runs as before: the
// only cost is a nil check.
//
// yaegi's own steps are per node (a line has many); the session steps
// by line: a step that stops on the line and in the frame where it began
// goes on by itself.

// DebugOptions turn debugging on (Session.SetDebug).
type DebugOptions struct {
	// Breakpoints returns the lines (1 is the cell's first) where cell
	// number n, whose text is code, stops. Nil or empty runs it without
	// the debugger. It is called once per cell, before it runs.
	Breakpoints func(n int, code string) []int
	// Stopped is called, on a goroutine of the session, each time a cell
	// run under the debugger stops. The cell waits until st.Resume is
	// called or the cell is interrupted. Stopped must not block.
	Stopped func(st *Stop)
}

// SetDebug turns debugging on with o, or off with nil. It may be called
// while a cell runs: the cell being run keeps the mode it started with.
func (s *Session) SetDebug(o *DebugOptions) { s.debug.Store(o) }

// Resume says how a stopped cell goes on.
type Resume int

const (
	Continue Resume = iota // run to the next breakpoint
	StepOver               // stop on the next line of this frame or a caller
	StepIn                 // stop on the next line, entering calls
	StepOut                // stop once this frame has returned
)

// A Stop is a cell stopped by the debugger.
type Stop struct {
	// Reason is "breakpoint", "step", "pause" or "entry".
	Reason string
	// Thread is the goroutine that stopped, 1 for the cell's own.
	Thread int
	// Frames are the calls, innermost first.
	Frames []StackFrame

	run    *debugRun
	ev     *yaegi.DebugEvent
	frames []*yaegi.DebugFrame
	once   sync.Once
}

// StackFrame is one call of a stopped cell.
type StackFrame struct {
	Name string
	// Cell is the number of the cell whose code the frame runs (the n of
	// DebugOptions.Breakpoints), Line and Column its position in that
	// cell; Cell is 0 for code outside cells (the session's helpers).
	Cell, Line, Column int
}

// Variable is a named value of a stopped cell.
type Variable struct {
	Name  string
	Value reflect.Value
}

// Locals returns the variables of frame i (an index into Frames),
// sorted by name.
func (st *Stop) Locals(i int) []Variable {
	if i < 0 || i >= len(st.frames) {
		return nil
	}
	var vs []Variable
	seen := map[string]bool{}
	for _, sc := range st.frames[i].Scopes() {
		for _, v := range safeVariables(sc) {
			if seen[v.Name] || !shown(v.Name, v.Value) {
				continue
			}
			seen[v.Name] = true
			vs = append(vs, Variable{Name: v.Name, Value: v.Value})
		}
	}
	sortVars(vs)
	return vs
}

// safeVariables returns the variables of sc; yaegi's frame may hold
// fewer slots than its scope names while a cell is being compiled.
func safeVariables(sc *yaegi.DebugFrameScope) (vs []*yaegi.DebugVariable) {
	defer func() {
		if recover() != nil {
			vs = nil
		}
	}()
	return sc.Variables()
}

// Globals returns the session's variables (not its functions), sorted by
// name.
func (st *Stop) Globals() []Variable {
	return st.run.s.Variables()
}

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
	var vs []Variable
	for name, v := range g {
		if shown(name, v) && v.Kind() != reflect.Func {
			vs = append(vs, Variable{Name: name, Value: v})
		}
	}
	sortVars(vs)
	return vs
}

func shown(name string, v reflect.Value) bool {
	return v.IsValid() && name != "_" && !strings.HasPrefix(name, helperPrefix)
}

func sortVars(vs []Variable) {
	sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
}

// Resume lets the stopped cell go on as r says. Only the first call of a
// Stop counts; later ones return ErrResumed.
func (st *Stop) Resume(r Resume) error {
	err := ErrResumed
	st.once.Do(func() { err = st.run.resume(st, r) })
	return err
}

// ErrResumed is returned by a second Resume of one Stop.
var ErrResumed = errors.New("interp: the stop was resumed already")

// debugRun is the debugging state of one cell.
type debugRun struct {
	s     *Session
	opts  *DebugOptions
	lines []int // yaegi's (virtual) lines of the breakpoints

	mu sync.Mutex
	// The step in progress: its kind and where it began.
	stepping  bool
	stepKind  yaegi.DebugEventReason
	stepCell  int
	stepLine  int
	stepDepth int

	dbg *yaegi.Debugger // of the piece running, under mu
}

// newDebugRun returns the debugging state of cell n, or nil when it runs
// without the debugger.
func (s *Session) newDebugRun(n int, code string) *debugRun {
	o := s.debug.Load()
	if o == nil || o.Breakpoints == nil || !s.debuggable() {
		return nil
	}
	lines := o.Breakpoints(n, code)
	if len(lines) == 0 {
		return nil
	}
	r := &debugRun{s: s, opts: o}
	for _, l := range lines {
		r.lines = append(r.lines, virtualLine(n, l))
	}
	return r
}

// eval compiles src and runs it under yaegi's debugger. Cancelling ctx
// ends it, stopped or running; like evalStoppable it gives up waiting
// after stopWait when the cell stays in a compiled call.
func (r *debugRun) eval(ctx context.Context, i *yaegi.Interpreter, src string, exit <-chan int) (o evalOutcome, interrupted, stopped bool) {
	prog, err := compile(i, src)
	if err != nil || prog == nil {
		return evalOutcome{err: err}, false, true
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
	r.s.rootDebug.repin(dbg)
	reqs := make([]yaegi.BreakpointRequest, len(r.lines))
	for k, l := range r.lines {
		reqs[k] = yaegi.LineBreakpoint(l)
	}
	dbg.SetBreakpoints(yaegi.ProgramBreakpointTarget(prog), reqs...)
	r.mu.Lock()
	r.dbg = dbg
	r.mu.Unlock()
	done := make(chan evalOutcome, 1)
	go func() {
		v, err := dbg.Wait()
		done <- evalOutcome{v: v, err: err}
	}()
	if err := dbg.Continue(1); err != nil {
		return evalOutcome{err: err}, false, true
	}
	defer waitDetached(i, terminated)
	select {
	case o = <-done:
		return o, false, true
	case code := <-exit:
		dcancel()
		return evalOutcome{exited: true, code: code}, false, true
	case <-ctx.Done():
	}
	// Cancelling the debugger's context wakes a stopped goroutine without
	// running the statement it stopped at (yaegi's Terminate would run
	// it), and stops the running ones as yaegi's stop does; the run id is
	// set back afterwards, as evalStoppable does (stop.go).
	st, ok := stopOf(i)
	var before uint64
	if ok {
		before = atomic.LoadUint64(st.id)
	}
	dcancel()
	select {
	case <-terminated:
	case <-time.After(stopWait):
		return evalOutcome{}, true, false
	}
	if ok {
		rearm(st.id, before)
	}
	return evalOutcome{}, true, true
}

// rootDebug pins the debug state that yaegi's debugger keeps in an
// interpreter's frames. Each Debug gives the global frame fresh debug data
// and the program a fresh goroutine record, but a function value keeps a
// copy of the frame it was made in, with the debug data of that time: nil
// before any run (yaegi's debugger then dereferences nil when the function
// is called), an earlier run's afterwards, whose goroutine record no
// longer counts (a breakpoint in the function would wait forever). So the
// session gives each interpreter debug data once, before any function
// exists (pinRootDebug), and after each Debug copies the run's data and
// goroutine record into the pinned ones, which it puts back in their
// places (repin): every function sees the current run.
type rootDebug struct {
	frameDebug, routine reflect.Type // yaegi's frameDebugData, debugRoutine
	gOffset             uintptr      // of frameDebugData.g
	gLive               reflect.StructField
	slot                unsafe.Pointer // the global frame's debug field
	pinned, pinnedG     unsafe.Pointer // the data every function shares
}

// pinRootDebug runs an empty program under the debugger so that i's
// global frame has debug data, and returns it; ok is false for a yaegi
// whose fields it does not know (debugging is then off).
func pinRootDebug(i *yaegi.Interpreter) (rd rootDebug, ok bool) {
	ff, ok := reflect.TypeFor[yaegi.Interpreter]().FieldByName("frame")
	if !ok || ff.Type.Kind() != reflect.Pointer || ff.Type.Elem().Kind() != reflect.Struct {
		return rootDebug{}, false
	}
	df, ok := ff.Type.Elem().FieldByName("debug")
	if !ok || df.Type.Kind() != reflect.Pointer || df.Type.Elem().Kind() != reflect.Struct {
		return rootDebug{}, false
	}
	gf, ok := df.Type.Elem().FieldByName("g")
	if !ok || gf.Type.Kind() != reflect.Pointer {
		return rootDebug{}, false
	}
	lf, ok := reflect.TypeFor[yaegi.Debugger]().FieldByName("gLive")
	if !ok || lf.Type.Kind() != reflect.Map || lf.Type.Key() != reflect.TypeFor[int]() || lf.Type.Elem() != gf.Type {
		return rootDebug{}, false
	}
	if _, ok := debuggerField(i); !ok {
		return rootDebug{}, false
	}
	prog, err := compile(i, "_ = 0")
	if err != nil {
		return rootDebug{}, false
	}
	terminated := make(chan struct{})
	dbg := i.Debug(context.Background(), prog, func(e *yaegi.DebugEvent) {
		if e.Reason() == yaegi.DebugTerminate {
			close(terminated)
		}
	}, &yaegi.DebugOptions{GoRoutineStartAt1: true})
	if err := dbg.Continue(1); err != nil {
		return rootDebug{}, false
	}
	_, _ = dbg.Wait()
	waitDetached(i, terminated)
	frame := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(i), ff.Offset))
	slot := unsafe.Add(frame, df.Offset)
	rd = rootDebug{
		frameDebug: df.Type.Elem(), routine: gf.Type.Elem(), gOffset: gf.Offset, gLive: lf,
		slot: slot, pinned: *(*unsafe.Pointer)(slot),
	}
	if rd.pinned == nil {
		return rootDebug{}, false
	}
	rd.pinnedG = *(*unsafe.Pointer)(unsafe.Add(rd.pinned, rd.gOffset))
	return rd, rd.pinnedG != nil
}

// repin copies the debug data and goroutine record that Debug has just
// made for dbg into the pinned ones and puts those in their places. It
// runs before the program starts, while Debug's goroutine waits.
func (rd rootDebug) repin(dbg *yaegi.Debugger) {
	fresh := *(*unsafe.Pointer)(rd.slot)
	if fresh == rd.pinned || fresh == nil {
		return
	}
	freshG := *(*unsafe.Pointer)(unsafe.Add(fresh, rd.gOffset))
	reflect.NewAt(rd.frameDebug, rd.pinned).Elem().Set(reflect.NewAt(rd.frameDebug, fresh).Elem())
	if freshG != nil {
		// The same resume channel: Debug's goroutine waits on it.
		reflect.NewAt(rd.routine, rd.pinnedG).Elem().Set(reflect.NewAt(rd.routine, freshG).Elem())
	}
	*(*unsafe.Pointer)(unsafe.Add(rd.pinned, rd.gOffset)) = rd.pinnedG
	*(*unsafe.Pointer)(rd.slot) = rd.pinned
	live := reflect.NewAt(rd.gLive.Type, unsafe.Add(unsafe.Pointer(dbg), rd.gLive.Offset)).Elem()
	live.SetMapIndex(reflect.ValueOf(1), reflect.NewAt(rd.routine, rd.pinnedG))
}

// debugRunFor returns the debugger run that piece src of the running
// cell goes under, or nil to run it as usual: the cell's when it has
// breakpoints, and one without breakpoints for a piece that makes the
// cell's functions (frames.go) in a debuggable session, so that their
// frames carry the pinned debug data.
func (s *Session) debugRunFor(src string) *debugRun {
	if s.drun != nil {
		return s.drun
	}
	if s.rootOK && strings.Contains(src, helperPrefix+"defs") && s.debuggable() {
		return &debugRun{s: s}
	}
	return nil
}

// debuggable says whether the session's interpreter can be debugged.
func (s *Session) debuggable() bool { return s.rootOK && s.rootFor == s.i }

// compile compiles src; a panic of yaegi's compiler is an error, as in
// yaegi's Eval.
func compile(i *yaegi.Interpreter, src string) (p *yaegi.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = yaegi.Panic{Value: r, Stack: debug.Stack()}
		}
	}()
	return i.Compile(src)
}

// waitDetached waits until yaegi's Debug has let go of i: after the
// terminate event its goroutine still clears the interpreter's debugger,
// and the next piece (maybe run without the debugger) must not see it.
func waitDetached(i *yaegi.Interpreter, terminated <-chan struct{}) {
	select {
	case <-terminated:
	case <-time.After(stopWait):
		return
	}
	p, ok := debuggerField(i)
	if !ok {
		time.Sleep(10 * time.Millisecond)
		return
	}
	for k := 0; k < 1000 && atomic.LoadPointer(p) != nil; k++ {
		runtime.Gosched()
		time.Sleep(50 * time.Microsecond)
	}
}

// debuggerField returns the address of i's debugger (an unexported field
// of yaegi v0.16.1's Interpreter), or false for another yaegi.
func debuggerField(i *yaegi.Interpreter) (*unsafe.Pointer, bool) {
	f, ok := reflect.TypeFor[yaegi.Interpreter]().FieldByName("debugger")
	if !ok || f.Type != reflect.TypeFor[*yaegi.Debugger]() {
		return nil, false
	}
	return (*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(i), f.Offset)), true
}

// stopped runs on the stopped goroutine: it goes on by itself with a
// line step that has not left its line, and reports the other stops.
func (r *debugRun) stopped(e *yaegi.DebugEvent) {
	frames := e.Frames(0, e.FrameDepth())
	st := &Stop{Reason: reason(e.Reason()), Thread: e.GoRoutine(), run: r, ev: e, frames: frames}
	for _, f := range frames {
		sf := StackFrame{Name: f.Name()}
		if p := f.Position(); p.Filename == cellFile && p.Line >= lineStride {
			sf.Cell, sf.Line = cellLine(p.Line)
			sf.Column = p.Column
		}
		if sf.Name == "<init>" {
			sf.Name = "cell"
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
		case kind != yaegi.DebugStepOut && top.Cell == r.stepCell && top.Line == r.stepLine && len(frames) == r.stepDepth:
			again = true
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

func (r *debugRun) resume(st *Stop, how Resume) error {
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
	r.stepCell, r.stepLine, r.stepDepth = 0, 0, len(st.frames)
	if len(st.Frames) > 0 {
		r.stepCell, r.stepLine = st.Frames[0].Cell, st.Frames[0].Line
	}
	r.mu.Unlock()
	return r.step(st.Thread, kind)
}

// step resumes goroutine id: a step of kind, or continue for 0. The
// stopped goroutine may still be on its way into its wait (yaegi says
// ErrRunning until it is): step retries then, for up to stopWait.
func (r *debugRun) step(id int, kind yaegi.DebugEventReason) error {
	r.mu.Lock()
	dbg := r.dbg
	r.mu.Unlock()
	deadline := time.Now().Add(stopWait)
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
