package interp

import (
	"go/scanner"
	"go/token"
	"os"
	"reflect"
	"unsafe"

	yaegi "github.com/traefik/yaegi/interp"
)

// The global frame stays as long as what lives in it.
//
// yaegi gives each temporary of top-level code a slot of the global frame
// (release.go), and on every evaluation that adds slots it allocates the
// frame anew and copies every slot into it: with a few slots a cell, a
// session of 10,000 cells copied a frame of 50,000 slots (1.2 MB of
// reflect.Values, under the write barrier while the GC runs) on nearly
// every cell, and the round trip of a trivial cell doubled (issue 28).
//
// The slots that statements take after the last global they define are
// never read again once the statements have run, when they made no
// function (a literal would keep a copy of the frame and read its slots
// by index) and started no goroutine (yaegi's go statement reads the
// call's slots as the goroutine starts). After such an evaluation the
// session cuts the frame and its layout (the types of the universe and
// main scopes, which yaegi keeps equal to the frame's length) back to
// those slots: the next evaluation numbers its temporaries from there
// again, and the frame grows only with the globals and functions that
// live.
//
// A value of a cell's type with methods that went into a compiled
// interface (fmt.Stringer, display.Renderer) keeps reading its receiver
// from the slot it was made in, whenever a method is called: yaegi's
// wrapper holds the frame and the slot's index. Such a slot must not be
// handed to another value, so when a slot to be cut holds a type with
// methods (or a pointer to one), the frame is left as it is.

// keepFrame turns the trimming off (GNNLAB_FRAME_TRIM=off), for the
// benchmarks that compare the two and for a bug report that suspects it.
var keepFrame = os.Getenv("GNNLAB_FRAME_TRIM") == "off"

// frameLayouts finds the slot types of i's universe scope and of its main
// package scope, which must have as many entries as the global frame has
// slots (unexported in yaegi v0.16.1); ok is false for another layout.
func frameLayouts(i *yaegi.Interpreter) (universe, main *[]reflect.Type, ok bool) {
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

// frameLen is the number of slots of i's global frame, -1 if unknown.
func frameLen(i *yaegi.Interpreter) int {
	data, _, ok := frameOf(i)
	if !ok {
		return -1
	}
	return len(*data)
}

// trimFrame cuts i's global frame back to mark slots, keeping those up to
// the last that holds a global, after an evaluation of src (statements
// that made no function and started no goroutine: the caller checks the
// former, trimFrame the latter). methods reports whether values of a type
// may be receivers of wrappers: a slot holding one is never cut.
func trimFrame(i *yaegi.Interpreter, mark int, src string, methods func(reflect.Type) bool) {
	if mark < 0 || keepFrame || startsGoroutine(src) {
		return
	}
	data, mu, ok := frameOf(i)
	if !ok {
		return
	}
	universe, main, ok := frameLayouts(i)
	if !ok {
		return
	}
	named := map[uintptr]bool{}
	for _, v := range globalsOf(i) {
		if v.IsValid() && v.CanAddr() {
			named[v.UnsafeAddr()] = true
		}
	}
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

// startsGoroutine reports whether src holds a go statement.
func startsGoroutine(src string) bool {
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
