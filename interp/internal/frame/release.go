package frame

import (
	"go/token"
	"reflect"
	"unsafe"

	yaegi "github.com/traefik/yaegi/interp"
)

// DropRoots empties i's list of the roots of every tree it compiled
// (unexported in yaegi v0.16.1), which only yaegi's debugger reads: the
// code of a finished top-level statement is unreachable otherwise, and
// the list kept all of it. What later code runs (functions, methods,
// types) stays reachable from the scopes. It does nothing for another
// layout.
func DropRoots(i *yaegi.Interpreter) {
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

// DropScopeChildren empties the list of the scopes nested in each package
// scope of i (every block and function body compiled at the top level),
// which only yaegi's debugger reads; each kept its function's code alive.
func DropScopeChildren(i *yaegi.Interpreter) {
	scopes, child, ok := scopeField("child", reflect.Slice)
	if !ok || child.Type.Elem() != scopes.Type.Elem() {
		return
	}
	eachScope(i, scopes, func(p unsafe.Pointer) {
		*(*[]unsafe.Pointer)(unsafe.Add(p, child.Offset)) = nil
	})
}

// Forget removes names from the symbols of i's package scopes: functions
// the session declared for one cell (interp's frames.go), which no later
// code calls. Compiled calls refer to a function's code, not to its
// symbol, so this only frees the code once nothing else uses it.
func Forget(i *yaegi.Interpreter, names []string) {
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

// fileSet finds i's file set (unexported in yaegi v0.16.1), where each
// evaluation adds its source's line table; nil for another layout.
func fileSet(i *yaegi.Interpreter) *token.FileSet {
	f, ok := reflect.TypeFor[yaegi.Interpreter]().FieldByName("fset")
	if !ok || f.Type != reflect.TypeFor[*token.FileSet]() {
		return nil
	}
	return *(**token.FileSet)(unsafe.Add(unsafe.Pointer(i), f.Offset))
}

// SourceMark is where the next evaluation's source will start in i's file
// set; -1 when the session cannot reach it.
func SourceMark(i *yaegi.Interpreter) int {
	if fs := fileSet(i); fs != nil {
		return fs.Base()
	}
	return -1
}

// DropSources removes from i's file set the sources evaluated since mark.
// The session calls it after statements that made no function: their
// code never runs again, and errors have been reported, so no position in
// them is looked up again.
func DropSources(i *yaegi.Interpreter, mark int) {
	fs := fileSet(i)
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
