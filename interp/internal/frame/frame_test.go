package frame

import (
	"go/token"
	"reflect"
	"testing"

	yaegi "github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

func newInterp(t *testing.T) *yaegi.Interpreter {
	t.Helper()
	i := yaegi.New(yaegi.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if Len(i) < 0 || SourceMark(i) < 0 {
		t.Skip("yaegi's layout is not the one this package knows")
	}
	return i
}

func eval(t *testing.T, i *yaegi.Interpreter, src string) reflect.Value {
	t.Helper()
	v, err := i.Eval(src)
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	return v
}

func noMethods(reflect.Type) bool { return false }

// TestTrimKeepsGlobals evaluates statements with temporaries after a
// global, trims, and checks that the frame is back to where the global
// ends and that the global and later code still work.
func TestTrimKeepsGlobals(t *testing.T) {
	i := newInterp(t)
	eval(t, i, "var acc = 1")
	for k := range 20 {
		mark := Len(i)
		src := "acc = acc + len([]int{1, 2, 3}) + len(\"ab\")"
		eval(t, i, src)
		if k == 0 && Len(i) <= mark {
			t.Fatalf("the statement took no slot (%d -> %d): the test shows nothing", mark, Len(i))
		}
		Trim(i, mark, src, i.Globals, noMethods)
		if Len(i) != mark {
			t.Fatalf("after Trim the frame has %d slots, want %d", Len(i), mark)
		}
	}
	if got := eval(t, i, "acc").Interface(); got != 1+20*5 {
		t.Errorf("acc = %v, want %d", got, 1+20*5)
	}
	// A global defined by trimmed code is kept.
	mark := Len(i)
	eval(t, i, "b := acc * 2")
	Trim(i, mark, "b := acc * 2", i.Globals, noMethods)
	if got := eval(t, i, "b + 1").Interface(); got != 2*101+1 {
		t.Errorf("b + 1 = %v, want %d", got, 2*101+1)
	}
}

// TestTrimLeaves checks the cases that must leave the frame as it is: a
// go statement, a slot of a type with methods, an unknown mark, and
// GNNLAB_FRAME_TRIM=off.
func TestTrimLeaves(t *testing.T) {
	i := newInterp(t)
	eval(t, i, "var acc = 1")
	for _, c := range []struct {
		name    string
		mark    func() int
		methods func(reflect.Type) bool
		src     string
		keep    bool
	}{
		{"go statement", func() int { return Len(i) }, noMethods, "acc = acc + len([]int{1})\ngo func() {}()", false},
		{"methods", func() int { return Len(i) }, func(reflect.Type) bool { return true }, "acc = acc + len([]int{1})", false},
		{"no mark", func() int { return -1 }, noMethods, "acc = acc + len([]int{1})", false},
		{"GNNLAB_FRAME_TRIM=off", func() int { return Len(i) }, noMethods, "acc = acc + len([]int{1})", true},
	} {
		keep = c.keep
		m := c.mark()
		before := Len(i)
		eval(t, i, c.src)
		after := Len(i)
		Trim(i, m, c.src, i.Globals, c.methods)
		if Len(i) != after || after <= before {
			t.Errorf("%s: frame %d -> %d after eval, %d after Trim; want it left at %d", c.name, before, after, Len(i), after)
		}
		keep = false
	}
}

func TestStartsGoroutine(t *testing.T) {
	for src, want := range map[string]bool{
		"go f()":                      true,
		"x := 1\ngo func() {}()":      true,
		"gopher := 1":                 false,
		"s := \"go f()\" // go f()":   false,
		"for range 3 { go work(ch) }": true,
		"defer f()":                   false,
	} {
		if got := StartsGoroutine(src); got != want {
			t.Errorf("StartsGoroutine(%q) = %v, want %v", src, got, want)
		}
	}
}

// TestDropSources checks that the sources evaluated since a mark leave the
// file set and that the interpreter goes on.
func TestDropSources(t *testing.T) {
	i := newInterp(t)
	eval(t, i, "var x = 1")
	mark := SourceMark(i)
	eval(t, i, "x = x + 1")
	eval(t, i, "x = x + 2")
	fs := fileSet(i)
	if fs.File(1) == nil || fs.File(token.Pos(mark)) == nil {
		t.Fatal("the file set holds no source for the evaluations")
	}
	DropSources(i, mark)
	if fs.File(token.Pos(mark)) != nil {
		t.Error("a source evaluated after the mark is still in the file set")
	}
	if fs.File(1) == nil {
		t.Error("the source before the mark left the file set")
	}
	if got := eval(t, i, "x").Interface(); got != 4 {
		t.Errorf("x = %v, want 4", got)
	}
}

// TestForget removes a declared function's symbol: a later cell can no
// longer name it, and one that called it before still runs.
func TestForget(t *testing.T) {
	i := newInterp(t)
	eval(t, i, "func helper() int { return 7 }")
	eval(t, i, "var f = func() int { return helper() }")
	DropRoots(i)
	DropScopeChildren(i)
	Forget(i, []string{"helper"})
	if _, err := i.Eval("helper()"); err == nil {
		t.Error("helper is still known after Forget")
	}
	if got := eval(t, i, "f()").Interface(); got != 7 {
		t.Errorf("f() = %v, want 7", got)
	}
}
