package viz_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/viz"
)

func TestLines(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	opts := viz.LineOptions{Title: "Gradient norm per layer", XLabel: "layer", YLabel: "norm", LogY: true, Markers: true}
	f, err := viz.Lines(x, []viz.Series{{Name: "sigmoid", Y: []float64{1e-6, 1e-4, 1e-2, 1}}, {Name: "relu", Y: []float64{0, 0.5, math.NaN(), 1}}}, opts)
	if err != nil {
		t.Fatalf("Lines = %v", err)
	}
	png, err := f.PNG()
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("PNG() = %d bytes, %v; want a PNG image", len(png), err)
	}
	if want := "Gradient norm per layer: sigmoid 1 at layer 4; relu 1 at layer 4"; f.String() != want {
		t.Errorf("String() = %q, want %q", f.String(), want)
	}
	bad := []struct {
		name   string
		x      []float64
		series []viz.Series
		o      viz.LineOptions
	}{
		{"no x", nil, []viz.Series{{Y: nil}}, opts},
		{"short series", x, []viz.Series{{Name: "a", Y: []float64{1}}}, opts},
		{"no labels", x, []viz.Series{{Name: "a", Y: x}}, viz.LineOptions{Title: "t"}},
		{"bad legend", x, []viz.Series{{Name: "a", Y: x}}, viz.LineOptions{Title: "t", XLabel: "x", YLabel: "y", Legend: "middle"}},
	}
	for _, c := range bad {
		if _, err := viz.Lines(c.x, c.series, c.o); !errors.Is(err, viz.ErrData) {
			t.Errorf("Lines(%s) = %v, want an error wrapping ErrData", c.name, err)
		}
	}
}

func TestMust(t *testing.T) {
	f := viz.NewFigure("t", "x", "y")
	if got := viz.Must(f, nil); got != f {
		t.Errorf("Must(f, nil) = %p, want %p", got, f)
	}
	defer func() {
		if err, _ := recover().(error); !errors.Is(err, viz.ErrData) {
			t.Errorf("Must(nil, ErrData) panicked with %v, want ErrData", err)
		}
	}()
	viz.Must(nil, viz.ErrData)
}
