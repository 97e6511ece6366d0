package interp

import (
	"go/token"
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
// cell, and the slots keep their values. A function literal evaluated at
// the top level copies the whole global frame (frames.go says how the
// session avoids that). yaegi also keeps, for its debugger only, the root
// of every tree it compiled and every scope nested in a package scope:
// through them all the code of every cell stayed alive.
//
// After each cell the session resets the temporaries' slots that the
// cell added to zero values (not their storage: a closure made in the cell
// keeps its own copy of the slot and sees what it saw). Code of a finished
// top-level statement never runs again, and named globals, the only slots
// later code reads, are kept. The slots themselves stay (yaegi indexes
// them): 24 bytes each. It empties the debugger's lists and forgets the
// functions it declared for the cell, so that the code of a statement or
// of a function redefined since can be freed; the code of live functions,
// types and the symbols of globals stay reachable from the package scope.
// yaegi's file set keeps the line table of every source it evaluated, for
// positions: those of statements that made no function are removed.

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

// scopeField finds field name of yaegi's scope struct through i's map
// of package scopes (unexported in yaegi v0.16.1), checking that it has
// kind k; ok is false for another layout.
func scopeField(name string, k reflect.Kind) (scopes reflect.StructField, f reflect.StructField, ok bool) {
	scopes, ok = reflect.TypeFor[yaegi.Interpreter]().FieldByName("scopes")
	if !ok || scopes.Type.Kind() != reflect.Map || scopes.Type.Key().Kind() != reflect.String ||
		scopes.Type.Elem().Kind() != reflect.Pointer || scopes.Type.Elem().Elem().Kind() != reflect.Struct {
		return scopes, f, false
	}
	f, ok = scopes.Type.Elem().Elem().FieldByName(name)
	return scopes, f, ok && f.Type.Kind() == k
}

// eachScope calls fn with a pointer to each package scope of i.
func eachScope(i *yaegi.Interpreter, scopes reflect.StructField, fn func(unsafe.Pointer)) {
	m := reflect.NewAt(scopes.Type, unsafe.Add(unsafe.Pointer(i), scopes.Offset)).Elem()
	for it := m.MapRange(); it.Next(); {
		if p := it.Value().UnsafePointer(); p != nil {
			fn(p)
		}
	}
}

// dropScopeChildren empties the list of the scopes nested in each package
// scope of i (every block and function body compiled at the top level),
// which only yaegi's debugger reads; each kept its function's code alive.
func dropScopeChildren(i *yaegi.Interpreter) {
	scopes, child, ok := scopeField("child", reflect.Slice)
	if !ok || child.Type.Elem() != scopes.Type.Elem() {
		return
	}
	eachScope(i, scopes, func(p unsafe.Pointer) {
		*(*[]unsafe.Pointer)(unsafe.Add(p, child.Offset)) = nil
	})
}

// forget removes names from the symbols of i's package scopes: functions
// the session declared for one cell (frames.go), which no later code
// calls. Compiled calls refer to a function's code, not to its symbol, so
// this only frees the code once nothing else uses it.
func forget(i *yaegi.Interpreter, names []string) {
	scopes, sym, ok := scopeField("sym", reflect.Map)
	if !ok || sym.Type.Key().Kind() != reflect.String || len(names) == 0 {
		return
	}
	eachScope(i, scopes, func(p unsafe.Pointer) {
		m := reflect.NewAt(sym.Type, unsafe.Add(p, sym.Offset)).Elem()
		for _, n := range names {
			m.SetMapIndex(reflect.ValueOf(n), reflect.Value{})
		}
	})
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
	if s.releasedIn != s.i {
		s.released, s.releasedIn = 0, s.i
		// A rebuilt interpreter imported the session's packages again.
		s.keepSlots = s.keepSlots || s.importsModules()
	}
	// The package-level variables of a package interpreted from source
	// (%go get, modules.go) take slots of the global frame when it is
	// imported, among the cell's temporaries: leave that cell's slots.
	if s.unstopped || s.keepSlots { // its code may still use its slots: leave them
		s.released, s.unstopped, s.keepSlots = len(d), false, false
		return
	}
	dropRoots(s.i)
	dropScopeChildren(s.i)
	forget(s.i, s.made)
	s.made = s.made[:0]
	for j := s.released; j < len(d); j++ {
		v := d[j]
		if !v.IsValid() || v.CanAddr() && named[v.UnsafeAddr()] {
			continue
		}
		// A value of a type with methods that went into a compiled
		// interface reads its receiver from this slot whenever a method
		// is called (framegrowth.go): items = append(items, item{"a"})
		// with items a []fmt.Stringer printed a zero item in later cells.
		if s.rt.WithMethods(v.Type()) || v.Kind() == reflect.Pointer && s.rt.WithMethods(v.Type().Elem()) {
			continue
		}
		d[j] = reflect.Zero(v.Type())
	}
	s.released = len(d)
}

// fsetOf finds i's file set (unexported in yaegi v0.16.1), where each
// evaluation adds its source's line table; nil for another layout.
func fsetOf(i *yaegi.Interpreter) *token.FileSet {
	f, ok := reflect.TypeFor[yaegi.Interpreter]().FieldByName("fset")
	if !ok || f.Type != reflect.TypeFor[*token.FileSet]() {
		return nil
	}
	return *(**token.FileSet)(unsafe.Add(unsafe.Pointer(i), f.Offset))
}

// sourceMark is where the next evaluation's source will start in i's file
// set; -1 when the session cannot reach it.
func sourceMark(i *yaegi.Interpreter) int {
	if fs := fsetOf(i); fs != nil {
		return fs.Base()
	}
	return -1
}

// dropSources removes from i's file set the sources evaluated since mark.
// The session calls it after statements that made no function: their
// code never runs again, and errors have been reported, so no position in
// them is looked up again.
func dropSources(i *yaegi.Interpreter, mark int) {
	fs := fsetOf(i)
	if fs == nil || mark < 0 {
		return
	}
	for p := mark; p < fs.Base(); {
		f := fs.File(token.Pos(p))
		if f == nil {
			return
		}
		p = f.Base() + f.Size() + 1
		fs.RemoveFile(f)
	}
}
