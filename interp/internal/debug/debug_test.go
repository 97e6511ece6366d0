package debug

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
	yaegi "github.com/traefik/yaegi/interp"
)

func TestVariables(t *testing.T) {
	x, y := 1, "a"
	globals := map[string]reflect.Value{
		"y":                     reflect.ValueOf(&y).Elem(),
		"x":                     reflect.ValueOf(&x).Elem(),
		"_":                     reflect.ValueOf(&x).Elem(),
		"f":                     reflect.ValueOf(func() {}),
		rewrite.Prefix + "defs": reflect.ValueOf(&x).Elem(),
		"invalid":               {},
	}
	got := Variables(globals)
	var names []string
	for _, v := range got {
		names = append(names, v.Name)
	}
	if want := []string{"x", "y"}; !reflect.DeepEqual(names, want) {
		t.Errorf("Variables(...) names = %v, want %v", names, want)
	}
}

func TestStaleFunc(t *testing.T) {
	if StaleFunc(errors.New("enterCall")) {
		t.Error("StaleFunc(a plain error) = true, want false")
	}
	if !StaleFunc(yaegi.Panic{Value: "nil", Stack: []byte("github.com/traefik/yaegi/interp.(*Debugger).enterCall(...)")}) {
		t.Error("StaleFunc(a panic in enterCall) = false, want true")
	}
}

func TestZeroDebuggerIsOff(t *testing.T) {
	var d Debugger
	i := yaegi.New(yaegi.Options{})
	if d.Debuggable(i) {
		t.Error("Debuggable of a zero Debugger = true")
	}
	if r := d.Start(i, 1, "x := 1", &Options{Breakpoints: func(int, string) []int { return []int{1} }}); r != nil {
		t.Error("Start of a zero Debugger = a run, want nil")
	}
	if r := d.RunFor(i, true); r != nil {
		t.Error("RunFor of a zero Debugger = a run, want nil")
	}
}

func TestPin(t *testing.T) {
	if raceBuild {
		t.Skip("never debuggable under -race")
	}
	var d Debugger
	i := yaegi.New(yaegi.Options{})
	d.Pin(i, nil, time.Second)
	if !d.Debuggable(i) {
		t.Fatal("after Pin, Debuggable = false: yaegi v0.16.1's fields not found")
	}
	if d.Debuggable(yaegi.New(yaegi.Options{})) {
		t.Error("Debuggable of another interpreter = true")
	}
}
