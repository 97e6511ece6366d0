package interp

import (
	"slices"
	"strings"
	"testing"
)

func TestComplete(t *testing.T) {
	s := newTestSession(t, Options{})
	mustEval(t, s, `import "fmt"
import "strings"
type point struct{ X, Y int }
func (p point) Norm1() int { return p.X + p.Y }
var origin = point{}
counter := 3
func helper() {}`)
	tests := []struct {
		code       string
		cursor     int // -1: end of code
		want       []string
		start, end int
	}{
		{"fmt.Pri", -1, []string{"Print", "Printf", "Println"}, 4, 7},
		{"x := strings.ToU", -1, []string{"ToUpper", "ToUpperSpecial"}, 13, 16},
		{"coun", -1, []string{"counter"}, 0, 4},
		{"hel", -1, []string{"helper"}, 0, 3},
		{"origin.", -1, []string{"Norm1", "X", "Y"}, 7, 7},
		{"origin.N", -1, []string{"Norm1"}, 7, 8},
		{"poi", -1, []string{"point"}, 0, 3},
		{"fo", -1, []string{"for"}, 0, 2},
		{"appe", -1, []string{"append"}, 0, 4},
		{"fmt.Printl(1)", 10, []string{"Println"}, 4, 10},
	}
	for _, tt := range tests {
		cursor := tt.cursor
		if cursor < 0 {
			cursor = len(tt.code)
		}
		got, start, end := s.Complete(tt.code, cursor)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Complete(%q, %d) = %v, want it to contain %q", tt.code, cursor, got, w)
			}
		}
		if start != tt.start || end != tt.end {
			t.Errorf("Complete(%q, %d) range = [%d, %d), want [%d, %d)", tt.code, cursor, start, end, tt.start, tt.end)
		}
		prefix := tt.code[start:cursor]
		for _, m := range got {
			if !strings.HasPrefix(m, prefix) {
				t.Errorf("Complete(%q, %d) offers %q, which lacks the prefix %q", tt.code, cursor, m, prefix)
			}
		}
	}
}

func BenchmarkComplete(b *testing.B) {
	s := newTestSession(b, Options{})
	mustEval(b, s, `import "fmt"
type point struct{ X, Y int }
var origin = point{}`)
	for _, code := range []string{"fmt.Pri", "ori", "origin.", "x"} {
		b.Run(code, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Complete(code, len(code))
			}
		})
	}
}
