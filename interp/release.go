package interp

import (
	"reflect"
	"sync"
	"unsafe"

	yaegi "github.com/traefik/yaegi/interp"
)

// What the interpreter keeps per evaluation, and what the session lets go.
//
// yaegi gives every temporary of top-level code (the value of a call, a
// function literal before its assignment, a variable of a block) a slot of
// the global frame, for good: the frame grows by a few slots with every
// cell, and the slots keep their values. Every function literal (every
// function the session defines) copies the whole global frame when it is
// made (a "frame clone"), so each clone holds the temporaries of all the
// cells before it, including older function values and their clones:
// memory grew with the square of the session's length (BenchmarkSoak).
//
// After each cell the session resets the temporaries' slots that the
// cell added to zero values (not their storage: a closure made in the cell
// keeps its own copy of the slot and sees what it saw). Code of a finished
// top-level statement never runs again, and named globals, the only slots
// later code reads, are kept. The slots themselves stay (yaegi indexes
// them), so each clone still costs a few bytes per cell of the session.

// frameOf finds the data slice and mutex of i's global frame (unexported
// in yaegi v0.16.1); ok is false for another layout.
func frameOf(i *yaegi.Interpreter) (data *[]reflect.Value, mu *sync.RWMutex, ok bool) {
	ft, ok1 := reflect.TypeFor[yaegi.Interpreter]().FieldByName("frame")
	if !ok1 || ft.Type.Kind() != reflect.Pointer || ft.Type.Elem().Kind() != reflect.Struct {
		return nil, nil, false
	}
	d, ok2 := ft.Type.Elem().FieldByName("data")
	m, ok3 := ft.Type.Elem().FieldByName("mutex")
	if !ok2 || !ok3 || d.Type != reflect.TypeFor[[]reflect.Value]() || m.Type != reflect.TypeFor[sync.RWMutex]() {
		return nil, nil, false
	}
	f := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(i), ft.Offset))
	if f == nil {
		return nil, nil, false
	}
	return (*[]reflect.Value)(unsafe.Add(f, d.Offset)), (*sync.RWMutex)(unsafe.Add(f, m.Offset)), true
}

// dropRoots empties i's list of the roots of every tree it compiled
// (unexported in yaegi v0.16.1), which only yaegi's debugger reads: the
// code of a finished top-level statement is unreachable otherwise, and
// the list kept all of it. What later code runs (functions, methods,
// types) stays reachable from the scopes. It does nothing for another
// layout.
func dropRoots(i *yaegi.Interpreter) {
	rt, ok := reflect.TypeFor[yaegi.Interpreter]().FieldByName("roots")
	if !ok || rt.Type.Kind() != reflect.Slice || rt.Type.Elem().Kind() != reflect.Pointer {
		return
	}
	*(*[]unsafe.Pointer)(unsafe.Add(unsafe.Pointer(i), rt.Offset)) = nil
}

// releaseTemps resets the slots of the global frame from s.released on
// that hold no named global, and moves s.released to the end. It runs
// after each cell.
func (s *Session) releaseTemps() {
	data, mu, ok := frameOf(s.i)
	if !ok {
		return
	}
	named := map[uintptr]bool{}
	for _, v := range globalsOf(s.i) {
		if v.IsValid() && v.CanAddr() {
			named[v.UnsafeAddr()] = true
		}
	}
	// yaegi can leave the frame's mutex held after a panic it reported
	// (%timeit panic("x")): then leave the slots for a later cell.
	if !mu.TryLock() {
		return
	}
	defer mu.Unlock()
	d := *data
	dropRoots(s.i)
	if s.releasedIn != s.i {
		s.released, s.releasedIn = 0, s.i
	}
	if s.unstopped { // its code may still use its slots: leave them
		s.released, s.unstopped = len(d), false
		return
	}
	for j := s.released; j < len(d); j++ {
		v := d[j]
		if !v.IsValid() || v.CanAddr() && named[v.UnsafeAddr()] {
			continue
		}
		d[j] = reflect.Zero(v.Type())
	}
	s.released = len(d)
}
