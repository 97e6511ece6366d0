package debug

import (
	"context"
	"reflect"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"
	"unsafe"

	yaegi "github.com/traefik/yaegi/interp"
)

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
func pinRootDebug(i *yaegi.Interpreter, wait time.Duration) (rd rootDebug, ok bool) {
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
	waitDetached(i, terminated, wait)
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

// waitDetached waits (up to wait) until yaegi's Debug has let go of i:
// after the terminate event its goroutine still clears the interpreter's
// debugger, and the next piece (maybe run without the debugger) must not
// see it.
func waitDetached(i *yaegi.Interpreter, terminated <-chan struct{}, wait time.Duration) {
	select {
	case <-terminated:
	case <-time.After(wait):
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
