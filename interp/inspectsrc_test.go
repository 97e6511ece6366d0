package interp

import (
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/interp/symbols"
)

// TestInspectExamplesAndSource: Shift-Tab shows a compiled symbol's
// signature, doc and first runnable example; name?? adds its source.
func TestInspectExamplesAndSource(t *testing.T) {
	s := newTestSession(t, Options{})
	mustEval(t, s, `import "github.com/gnnlab/gnnlab/gnnlib/nn"
m := nn.NewGCN(4, 8, 2)
// twice doubles.
func twice(x int) int {
	return 2 * x
}`)
	tests := []struct {
		code    string
		detail  int
		want    []string
		notWant []string
	}{
		{"nn.NewGCN", 0, []string{"func NewGCN(in, hidden, out int) *GCN", "NewGCN returns", "Example:\n\n\tds := data.KarateClub()", "// Output: test accuracy"}, []string{"Source ("}},
		{"nn.NewGCN", 1, []string{"Example:", "Source (models.go:", "func NewGCN(in, hidden, out int) *GCN {\n"}, nil},
		{"tensor.Tensor.MatMul", 0, []string{"func (t *Tensor) MatMul", "Example:", "x.MatMul(w)"}, nil},
		{"m.Forward", 0, []string{"func (m *GCN) Forward(", "Forward returns"}, []string{"Source ("}},
		{"m.Forward", 1, []string{"Source (models.go:", "m.Conv2.Forward"}, nil},
		{"strings.ToUpper", 1, []string{"func ToUpper(s string) string {\n", "Source (strings.go:"}, nil},
		{"twice", 0, []string{"func twice(x int) int\n", "twice doubles.", "(defined in cell[1])"}, []string{"return 2 * x"}},
		{"twice", 1, []string{"return 2 * x", "twice doubles."}, nil},
	}
	for _, tt := range tests {
		text, found := s.Inspect(tt.code, len(tt.code), tt.detail)
		if !found {
			t.Errorf("Inspect(%q, %d): not found", tt.code, tt.detail)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("Inspect(%q, %d) = %q, want it to contain %q", tt.code, tt.detail, text, w)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(text, w) {
				t.Errorf("Inspect(%q, %d) = %q, want no %q", tt.code, tt.detail, text, w)
			}
		}
	}
}

// TestExamplesAreDocumented: every generated example belongs to a
// documented symbol, so that Shift-Tab shows it.
func TestExamplesAreDocumented(t *testing.T) {
	if len(symbols.Examples) == 0 {
		t.Fatal("symbols.Examples is empty")
	}
	for key := range symbols.Examples {
		if _, ok := symbols.Docs[key]; !ok {
			t.Errorf("symbols.Examples[%q] has no entry in symbols.Docs", key)
		}
	}
}
