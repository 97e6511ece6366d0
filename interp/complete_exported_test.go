package interp

import (
	"slices"
	"strings"
	"testing"
)

// TestCompleteOffersWhatCellsMayUse: the unexported fields of a compiled
// type are not offered (a cell cannot use them), those of a cell's own
// type are, by the names the cell wrote.
func TestCompleteOffersWhatCellsMayUse(t *testing.T) {
	s := newTestSession(t, Options{})
	mustEval(t, s, `import "github.com/gnnlab/gnnlab/gnnlib/data"
type pt struct{ x, Y int; name string }
func (p pt) Sum() int { return p.x + p.Y }
var p = pt{1, 2, "a"}
var q = &pt{}
ds := data.KarateClub()`)
	tests := []struct {
		code    string
		want    []string
		notWant []string
	}{
		{"ds.", []string{"NumClasses", "X", "Y"}, []string{"features", "numClasses"}},
		{"ds.X.", []string{"Shape", "MatMul"}, []string{"data", "shape", "grad"}},
		{"ds.numClasses.", nil, nil},
		{"p.", []string{"x", "Y", "name", "Sum"}, []string{"Xx", "Xname"}},
		{"q.", []string{"x", "Y", "name", "Sum"}, []string{"Xx"}},
	}
	for _, tt := range tests {
		got, _, _ := s.Complete(tt.code, len(tt.code))
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Complete(%q) = %v, want it to contain %q", tt.code, got, w)
			}
		}
		for _, w := range tt.notWant {
			if slices.Contains(got, w) {
				t.Errorf("Complete(%q) = %v, want no %q", tt.code, got, w)
			}
		}
		if tt.want == nil && len(got) != 0 {
			t.Errorf("Complete(%q) = %v, want nothing", tt.code, got)
		}
	}
	// Every completion offered for ds. compiles; an unexported field is a
	// compile error, not a panic.
	for _, code := range []string{"ds.numClasses", "ds.features", "func f() int { return ds.numClasses }", "ds.X.data"} {
		_, err := s.Eval(t.Context(), code)
		if err == nil || !strings.Contains(err.Error(), "compile error: ") || !strings.Contains(err.Error(), "cannot refer to unexported") {
			t.Errorf("Eval(%q) = %v, want a compile error about the unexported field", code, err)
		}
	}
	for _, code := range []string{"p.x + p.Y", "p.name", "ds.NumClasses()"} {
		if _, err := s.Eval(t.Context(), code); err != nil {
			t.Errorf("Eval(%q) = %v, want no error", code, err)
		}
	}
}

// TestCompleteInspectNeverPanic: completion and inspection at every
// cursor position of some cells.
func TestCompleteInspectNeverPanic(t *testing.T) {
	s := newTestSession(t, Options{})
	mustEval(t, s, `import "github.com/gnnlab/gnnlab/gnnlib/data"
import "fmt"
type pt struct{ x int }
var p = &pt{}
ds := data.KarateClub()`)
	for _, code := range []string{"ds.X.data.", "fmt.Println(ds.features.", "p.x.y.", "ds.Graph.", "(ds).X.", "ds..", "\"ds.\".", "p?.x"} {
		for k := 0; k <= len(code); k++ {
			s.Complete(code, k)
			for d := 0; d < 2; d++ {
				s.Inspect(code, k, d)
			}
		}
	}
}
