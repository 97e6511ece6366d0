package interp

import (
	"context"
	"errors"
	"go/token"
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
// While debugging is on (SetDebug), every piece of source the session
// gives yaegi for a cell is compiled and run in yaegi's Debug, with
// breakpoints on the lines that DebugOptions.Breakpoints returns for each
// cell the session has run: the //line directives of the pieces carry
// the cells' own lines, numbered apart per cell (virtualLine), so a
// breakpoint in a function of an earlier cell stops when a later cell
// calls it. A stop reaches DebugOptions.Stopped as a *Stop, which the cell
// waits on until it is resumed. With debugging off a cell runs as before:
// the cost is a nil check per piece, and in a Debuggable session the
// short run of the piece that makes a cell's functions (see rootDebug).
//
// yaegi's own steps are per node (a line has many); the session steps
// by line: a step that stops on the line and in the frame where it began
// goes on by itself.

// debugger is the debugging state of a session, one field of Session.
type debugger struct {
	// debug is set by SetDebug; drun is the debugging state of the
	// running cell, nil when it runs without the debugger.
	debug atomic.Pointer[DebugOptions]
	drun  *debugRun
	// rootDebug is the debug data of the global frame of rootFor, the
	// interpreter it belongs to, set up when rootOK.
	rootDebug rootDebug
	rootOK    bool
	rootFor   *yaegi.Interpreter
	cells     map[int]string // the code of each cell run, when Debuggable
	// progs are the pieces that declared functions, compiled for the
	// debugger: where breakpoints in earlier cells are set.
	progs []*yaegi.Program
}

// DebugOptions turn debugging on (Session.SetDebug).
type DebugOptions struct {
	// Breakpoints returns the lines (1 is the cell's first) where the
	// code of cell number n stops. Before each cell runs it is called for
	// that cell and for every earlier one.
	Breakpoints func(n int, code string) []int
	// Stopped is called, on a goroutine of the session, each time a cell
	// run under the debugger stops. The cell waits until st.Resume is
	// called or the cell is interrupted. Stopped must not block.
	Stopped func(st *Stop)
}

// SetDebug turns debugging on with o, or off with nil. It may be called
// while a cell runs: the cell being run keeps the mode it started with.
func (s *Session) SetDebug(o *DebugOptions) { s.dbg.debug.Store(o) }

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
	// Frames are the frame that stopped and those it is nested in,
	// innermost first: yaegi's debugger follows where a function was
	// declared (a cell's function: that frame alone), not its callers.
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
	s      *Session
	opts   *DebugOptions
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

// newDebugRun returns the debugging state of cell n, or nil when it runs
// without the debugger (debugging is off). The breakpoints are those of
// every cell the session has run, so that a function of an earlier cell
// stops in its own lines.
func (s *Session) newDebugRun(n int, code string) *debugRun {
	if s.dbg.cells != nil {
		s.dbg.cells[n] = code
	}
	o := s.dbg.debug.Load()
	if o == nil || o.Breakpoints == nil || !s.debuggable() {
		return nil
	}
	r := &debugRun{s: s, opts: o, breaks: map[int]bool{}}
	for m, c := range s.dbg.cells {
		for _, l := range o.Breakpoints(m, c) {
			v := virtualLine(m, l)
			if !r.breaks[v] {
				r.breaks[v] = true
				r.lines = append(r.lines, v)
			}
		}
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
	r.s.dbg.rootDebug.repin(dbg)
	reqs := make([]yaegi.BreakpointRequest, len(r.lines))
	for k, l := range r.lines {
		reqs[k] = yaegi.LineBreakpoint(l)
	}
	// On this piece and every one that declared functions: the lines are
	// the cells' own (virtual) ones, which no two cells share.
	dbg.SetBreakpoints(targets(r.s.dbg.progs, prog), reqs...)
	if declaresFuncs(src) {
		r.s.dbg.progs = append(r.s.dbg.progs, prog)
	}
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
	if raceBuild {
		return rootDebug{}, false
	}
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
// cell goes under, or nil to run it as usual: the cell's while debugging
// is on, and one without breakpoints for a piece that makes the cell's
// functions (frames.go) in a debuggable session, so that their frames
// carry the pinned debug data.
func (s *Session) debugRunFor(src string) *debugRun {
	if s.dbg.drun != nil {
		return s.dbg.drun
	}
	if s.dbg.rootOK && makesFuncs(src) && s.debuggable() {
		return &debugRun{s: s}
	}
	return nil
}

// makesFuncs says whether piece src declares functions (a file that
// mentions func) or only calls the function that makes the cell's
// functions (frames.go's defSteps).
func makesFuncs(src string) bool {
	if rest, ok := strings.CutPrefix(src, blockPrefix+helperPrefix+"defs"); ok {
		return !strings.ContainsAny(rest, "\n;")
	}
	return declaresFuncs(src)
}

func declaresFuncs(src string) bool {
	return strings.HasPrefix(src, "package main\n") && strings.Contains(src, "func")
}

// targets returns a breakpoint target of the programs kept and prog.
// yaegi's BreakpointTarget takes a callback of an unexported type: the
// composite is made with reflect.
func targets(progs []*yaegi.Program, prog *yaegi.Program) yaegi.BreakpointTarget {
	all := append(progs[:len(progs):len(progs)], prog)
	t := reflect.TypeFor[yaegi.BreakpointTarget]()
	f := reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		for _, p := range all {
			reflect.ValueOf(yaegi.ProgramBreakpointTarget(p)).Call(args)
		}
		return nil
	})
	return f.Interface().(yaegi.BreakpointTarget)
}

// debuggable says whether the session's interpreter can be debugged.
func (s *Session) debuggable() bool { return s.dbg.rootOK && s.dbg.rootFor == s.i }

// staleFuncError is the error of a piece run under the debugger that
// called a function value made outside it by a call (a function literal
// of a statement cell, a closure returned by a function) while debugging
// was off: its frames have no debug data and yaegi's debugger
// dereferences nil. Nil for other errors.
func staleFuncError(err error) *Error {
	var pv yaegi.Panic
	if !errors.As(err, &pv) || !strings.Contains(string(pv.Stack), "yaegi/interp.(*Debugger).enterCall") {
		return nil
	}
	const msg = "the debugger cannot run a function value made while it was off " +
		"(a function literal of a cell, or a closure returned by a call): run the cell that makes it again with the debugger on"
	return &Error{Name: "debugger", Value: msg, Traceback: []string{"debugger: " + msg}}
}

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
	all := e.Frames(0, e.FrameDepth())
	st := &Stop{Reason: reason(e.Reason()), Thread: e.GoRoutine(), run: r, ev: e}
	for _, f := range all {
		sf := StackFrame{Name: f.Name()}
		if strings.HasPrefix(sf.Name, helperPrefix) {
			continue // the function that made a cell's functions (frames.go)
		}
		st.frames = append(st.frames, f)
		if p := f.Position(); p.Filename == cellFile && p.Line >= lineStride {
			sf.Cell, sf.Line = cellLine(p.Line)
			sf.Column = p.Column
		}
		switch sf.Name {
		case "<init>":
			sf.Name = "cell"
		case "<anonymous>":
			// The session declares a cell's functions as variables that
			// hold literals: name the frame by the declaration.
			if name := r.s.funcAt(virtualLine(sf.Cell, sf.Line)); name != "" {
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
		if len(st.Frames) == 0 || !r.breaks[virtualLine(st.Frames[0].Cell, st.Frames[0].Line)] {
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

// funcAt returns the name of the function declared by a cell that holds
// yaegi's line v, or "".
func (s *Session) funcAt(v int) string {
	name := ""
	for _, r := range s.records {
		if r.tok == token.FUNC && len(r.names) > 0 && r.line <= v && v <= r.line+strings.Count(r.text, "\n") {
			name = r.names[0]
		}
	}
	return name
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
	r.stepCell, r.stepLine, r.stepDepth = 0, 0, st.ev.FrameDepth()
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
