package interp

import (
	"strings"
	"testing"
)

func TestInspect(t *testing.T) {
	s := newTestSession(t, Options{})
	mustEval(t, s, `import "fmt"
import "github.com/gnnlab/gnnlab/viz/display"
// area returns the area of a w by h rectangle.
func area(w, h float64) float64 { return w * h }
type point struct{ X, Y int }
// Norm1 is the taxicab norm.
func (p point) Norm1() int { return p.X + p.Y }
n := 7`)
	tests := []struct {
		code   string
		cursor int
		want   []string
	}{
		{"fmt.Println(x)", 6, []string{"func Println(a ...any) (n int, err error)", "Println formats"}},
		{"area(1, 2)", 2, []string{"func area(w, h float64) float64", "returns the area", "cell[1]"}},
		{"display.Show(b)", 10, []string{"func Show(b Bundle)", "Show displays b"}},
		{"n", 1, []string{"var n int", "7"}},
		{"point{}.Norm1()", 10, []string{"func (p point) Norm1() int", "taxicab"}},
		{"fmt", 1, []string{"package fmt"}},
	}
	for _, tt := range tests {
		got, found := s.Inspect(tt.code, tt.cursor, 0)
		if !found {
			t.Errorf("Inspect(%q, %d) found nothing", tt.code, tt.cursor)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("Inspect(%q, %d) = %q, want it to contain %q", tt.code, tt.cursor, got, w)
			}
		}
	}
	if got, found := s.Inspect("nosuchname", 3, 0); found {
		t.Errorf("Inspect(nosuchname) = %q, want not found", got)
	}
	if got, _ := s.Inspect("area(1, 2)", 2, 1); !strings.Contains(got, "return w * h") {
		t.Errorf("Inspect(area, detail 1) = %q, want the body", got)
	}
}

func BenchmarkInspect(b *testing.B) {
	s := newTestSession(b, Options{})
	mustEval(b, s, `import "fmt"`)
	s.Inspect("fmt.Println", 6, 0) // parses fmt's sources once
	b.ReportAllocs()
	for b.Loop() {
		s.Inspect("fmt.Println", 6, 0)
	}
}

func TestInspectInCall(t *testing.T) {
	s := newTestSession(t, Options{})
	mustEval(t, s, `import "strings"`)
	for _, tt := range []struct {
		code   string
		cursor int
		found  bool
	}{
		{"strings.ToUpper(", 16, true},
		{"strings.ToUpper(x, ", 19, true},
		{"strings.ToUpper()", 16, true},
		{"(1 + ", 5, false},
		{"x := [", 6, false},
	} {
		text, found := s.Inspect(tt.code, tt.cursor, 0)
		if found != tt.found || found && !strings.Contains(text, "func ToUpper") {
			t.Errorf("Inspect(%q, %d) = %.30q, %v, want found %v", tt.code, tt.cursor, text, found, tt.found)
		}
	}
}

// TestInspectOneRenderer checks that a cell's declaration prints as a
// compiled package's does (one renderer, sigdoc): gofmt's spacing and
// alignment whatever the cell's, the struct's fields aligned with
// spaces after tab indents, as in the standard library's
// (strings.Builder's doc is printed the same way).
func TestInspectOneRenderer(t *testing.T) {
	s := newTestSession(t, Options{})
	mustEval(t, s, "import \"strings\"\nfunc  scale( x float64,k float64 )float64 { return x*k }\ntype pair struct{ A int; Name string }")
	for _, c := range []struct {
		code, want string
	}{
		{"scale", "func scale(x float64, k float64) float64\n"},
		{"pair", "type pair struct {\n\tA    int\n\tName string\n}\n"},
		{"strings.NewReplacer", "func NewReplacer(oldnew ...string) *Replacer\n"},
	} {
		got, _ := s.Inspect(c.code, len(c.code), 0)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("Inspect(%q) = %q, want it to start with %q", c.code, got, c.want)
		}
	}
}
