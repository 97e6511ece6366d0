package frame

import (
	"go/scanner"
	"go/token"
	"os"
	"reflect"
	"sync"
	"unsafe"

	yaegi "github.com/traefik/yaegi/interp"
)

// keep turns the trimming off (GNNLAB_FRAME_TRIM=off).
var keep = os.Getenv("GNNLAB_FRAME_TRIM") == "off"

// Data finds the data slice and mutex of i's global frame (unexported
// in yaegi v0.16.1); ok is false for another layout.
func Data(i *yaegi.Interpreter) (data *[]reflect.Value, mu *sync.RWMutex, ok bool) {
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

// layouts finds the slot types of i's universe scope and of its main
// package scope, which must have as many entries as the global frame has
// slots (unexported in yaegi v0.16.1); ok is false for another layout.
func layouts(i *yaegi.Interpreter) (universe, main *[]reflect.Type, ok bool) {
	it := reflect.TypeFor[yaegi.Interpreter]()
	uf, ok1 := it.FieldByName("universe")
	sf, ok2 := it.FieldByName("scopes")
	if !ok1 || !ok2 || uf.Type.Kind() != reflect.Pointer || uf.Type.Elem().Kind() != reflect.Struct ||
		sf.Type.Kind() != reflect.Map || sf.Type.Key().Kind() != reflect.String || sf.Type.Elem() != uf.Type {
		return nil, nil, false
	}
	tf, ok3 := uf.Type.Elem().FieldByName("types")
	if !ok3 || tf.Type != reflect.TypeFor[[]reflect.Type]() {
		return nil, nil, false
	}
	u := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(i), uf.Offset))
	m := reflect.NewAt(sf.Type, unsafe.Add(unsafe.Pointer(i), sf.Offset)).Elem().MapIndex(reflect.ValueOf("main"))
	if u == nil || !m.IsValid() || m.IsNil() {
		return nil, nil, false
	}
	return (*[]reflect.Type)(unsafe.Add(u, tf.Offset)), (*[]reflect.Type)(unsafe.Add(m.UnsafePointer(), tf.Offset)), true
}

// Len is the number of slots of i's global frame, -1 if unknown.
func Len(i *yaegi.Interpreter) int {
	data, _, ok := Data(i)
	if !ok {
		return -1
	}
	return len(*data)
}

// Trim cuts i's global frame back to mark slots, keeping those up to the
// last that holds one of globals (i's globals, which the caller reads),
// after an evaluation of src (statements that made no function and started
// no goroutine: the caller checks the former, Trim the latter). methods
// reports whether values of a type may be receivers of wrappers: a slot
// holding one is never cut.
func Trim(i *yaegi.Interpreter, mark int, src string, globals func() map[string]reflect.Value, methods func(reflect.Type) bool) {
	if mark < 0 || keep || StartsGoroutine(src) {
		return
	}
	data, mu, ok := Data(i)
	if !ok {
		return
	}
	universe, main, ok := layouts(i)
	if !ok {
		return
	}
	named := Addrs(globals())
	if !mu.TryLock() {
		return
	}
	defer mu.Unlock()
	d := *data
	if mark >= len(d) || len(*universe) != len(d) || len(*main) != len(d) {
		return
	}
	cut := mark
	for j := len(d) - 1; j >= mark; j-- {
		if v := d[j]; v.IsValid() && v.CanAddr() && named[v.UnsafeAddr()] {
			cut = j + 1
			break
		}
	}
	if cut == len(d) {
		return
	}
	for _, v := range d[cut:] {
		if v.IsValid() && (methods(v.Type()) || v.Kind() == reflect.Pointer && methods(v.Type().Elem())) {
			return
		}
	}
	clear(d[cut:])
	*data = d[:cut]
	*universe = (*universe)[:cut]
	*main = (*main)[:cut]
}

// Addrs is the set of the addresses of globals' storage: the slots of
// the global frame that hold a named global.
func Addrs(globals map[string]reflect.Value) map[uintptr]bool {
	named := map[uintptr]bool{}
	for _, v := range globals {
		if v.IsValid() && v.CanAddr() {
			named[v.UnsafeAddr()] = true
		}
	}
	return named
}

// StartsGoroutine reports whether src holds a go statement.
func StartsGoroutine(src string) bool {
	var sc scanner.Scanner
	sc.Init(token.NewFileSet().AddFile("", -1, len(src)), []byte(src), nil, 0)
	for {
		switch _, tok, _ := sc.Scan(); tok {
		case token.EOF:
			return false
		case token.GO:
			return true
		}
	}
}
