package interp

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	yaegi "github.com/traefik/yaegi/interp"
)

// How an interrupt stops yaegi, and why the session does it itself.
//
// yaegi's EvalWithContext stops on cancellation by adding one to the
// interpreter's run id and closing its "done" channel: every interpreted
// run loop compares its frame's id with the interpreter's and ends on a
// mismatch, and channel operations select on done. But a function literal
// (and the session turns top-level functions into function variables)
// keeps a clone of the frame it was made in, with the id of that time, so
// after one stop every function defined before it runs no statement and
// returns zero values; and its clone keeps the closed done channel, so its
// channel operations end at once too. EvalWithContext also returns at
// cancellation without waiting for its goroutine, which the session then
// had to find in dumps of every goroutine's stack (slow with many
// goroutines).
//
// So the session stops a cell itself: it adds one to the run id, which
// ends the interpreted loops, waits for EvalWithContext (given a context
// that is never cancelled) to return, which it does when the cell's
// goroutine has ended (no stack dumps), and sets the run id back, which
// re-arms the earlier functions. Only when the cell does not end within
// softStopWait (it waits in a channel operation or a compiled call) does it
// close done as yaegi's stop would; the run id is still set back once the
// cell has ended, but the earlier closures' channel operations keep the
// closed channel (BUG in doc.go).

// softStopWait is how long a soft stop waits before closing done.
const softStopWait = 250 * time.Millisecond

// yaegiStop holds the parts of a yaegi Interpreter that its stop uses:
// the run id, the mutex that guards done, and done.
type yaegiStop struct {
	id   *uint64
	mu   *sync.RWMutex
	done *chan struct{}
}

// stopOf finds i's run id, mutex and done channel (unexported fields of
// yaegi v0.16.1's Interpreter); ok is false if this version of yaegi has
// other fields.
func stopOf(i *yaegi.Interpreter) (st yaegiStop, ok bool) {
	t := reflect.TypeFor[yaegi.Interpreter]()
	id, ok1 := t.FieldByName("id")
	mu, ok2 := t.FieldByName("mutex")
	done, ok3 := t.FieldByName("done")
	if !ok1 || !ok2 || !ok3 || id.Type != reflect.TypeFor[uint64]() || mu.Type != reflect.TypeFor[sync.RWMutex]() ||
		done.Type != reflect.TypeFor[chan struct{}]() {
		return yaegiStop{}, false
	}
	p := unsafe.Pointer(i)
	return yaegiStop{
		id:   (*uint64)(unsafe.Add(p, id.Offset)),
		mu:   (*sync.RWMutex)(unsafe.Add(p, mu.Offset)),
		done: (*chan struct{})(unsafe.Add(p, done.Offset)),
	}, true
}

type evalOutcome struct {
	v   reflect.Value
	err error
	// exited says the cell called os.Exit(code) (exit.go): its goroutine
	// stays blocked there, so that no deferred call runs.
	exited bool
	code   int
}

// evalStoppable runs src on i. When ctx is cancelled first it stops the
// cell as described above and returns interrupted true; stopped is false
// when the cell was still running (in a compiled call) after stopWait. A
// status received on exit ends the evaluation with o.exited.
//
// fire, when not nil, is called once the run id has changed: it ends the
// compiled blocking calls the cell may wait in (blocking.go), so that the
// cell stops at its next statement.
func evalStoppable(ctx context.Context, i *yaegi.Interpreter, src string, exit <-chan int, fire func(), tag string) (o evalOutcome, interrupted, stopped bool) {
	if ctx.Err() != nil {
		// Interrupted before this part of the cell began (while the
		// compiled tier built the cell, say): run none of it, so that no
		// declaration is left half made. A function's variable declared
		// in one part and assigned in the next stayed nil, and calling it
		// failed with reflect's "call of nil function".
		return evalOutcome{}, true, true
	}
	st, ok := stopOf(i)
	if !ok {
		return evalYaegiStop(ctx, i, src, exit)
	}
	done := make(chan evalOutcome, 1)
	// EvalWithContext sets a fresh done channel under the mutex; its
	// context is never cancelled, so yaegi's own stop never runs.
	before := atomic.LoadUint64(st.id)
	go func() {
		// The goroutines the cell starts inherit the label, so that
		// leftBehind counts them and nothing else (blocking.go).
		pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(cellLabel, tag)))
		v, err := i.EvalWithContext(context.Background(), src)
		done <- evalOutcome{v: v, err: err}
	}()
	select {
	case o = <-done:
		return o, false, true
	case code := <-exit:
		return evalOutcome{exited: true, code: code}, false, true
	case <-ctx.Done():
	}
	// Interpreted loops end when the run id changes. The cell may not have
	// started yet (it compiles): its run would take the changed id as its
	// own, so the id changes again every millisecond until it has ended.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	soft := time.After(softStopWait)
	limit := time.After(stopWait)
	atomic.AddUint64(st.id, 1)
	if fire != nil {
		fire()
	}
	for {
		atomic.AddUint64(st.id, 1)
		select {
		case o = <-done:
			rearm(st.id, before)
			return o, true, true
		case code := <-exit:
			rearm(st.id, before)
			return evalOutcome{exited: true, code: code}, false, true
		case <-tick.C:
		case <-soft:
			// The cell waits in a channel operation (or a compiled
			// call): close done, as yaegi's stop does, so that channel
			// operations end too.
			st.mu.Lock()
			closeOnce(*st.done)
			st.mu.Unlock()
		case <-limit:
			// Still in a compiled call: it stops when that returns. The
			// run id stays changed, or the cell would go on.
			return evalOutcome{}, true, false
		}
	}
}

// closeOnce closes c unless it is nil or closed (the cell's goroutine may
// not have set its own yet); only the session closes these channels.
func closeOnce(c chan struct{}) {
	if c == nil {
		return
	}
	select {
	case <-c:
	default:
		close(c)
	}
}

// evalYaegiStop is the stop for a yaegi whose fields stopOf does not know:
// EvalWithContext's own, which returns at cancellation while its goroutine
// winds down, found among the stacks of all goroutines.
func evalYaegiStop(ctx context.Context, i *yaegi.Interpreter, src string, exit <-chan int) (o evalOutcome, interrupted, stopped bool) {
	gid := make(chan uint64, 1)
	done := make(chan evalOutcome, 1)
	// yaegi sees ctx through ictx, which stops following ctx when this
	// returns: a goroutine left behind by os.Exit (exit.go) must not stop
	// a later evaluation when ctx is cancelled after this one.
	ictx, icancel := context.WithCancel(context.WithoutCancel(ctx))
	defer context.AfterFunc(ctx, icancel)()
	go func() {
		gid <- goroutineID()
		v, err := i.EvalWithContext(ictx, src)
		done <- evalOutcome{v: v, err: err}
	}()
	id := <-gid
	select {
	case o = <-done:
	case code := <-exit:
		return evalOutcome{exited: true, code: code}, false, true
	}
	if ctx.Err() == nil || !errors.Is(o.err, ctx.Err()) {
		return o, false, true
	}
	return o, true, waitStopped(id, stopWait)
}

// rearm sets the run id back once the cell has ended, after giving the
// goroutines it started a moment to notice the stop.
func rearm(rid *uint64, before uint64) {
	runtime.Gosched()
	time.Sleep(10 * time.Millisecond)
	atomic.StoreUint64(rid, before)
}
