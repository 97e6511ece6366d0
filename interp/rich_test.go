package interp

import (
	"bytes"
	"strings"
	"testing"
)

func TestRichValues(t *testing.T) {
	var stderr bytes.Buffer
	s := newTestSession(t, Options{Stderr: &stderr})
	mustEval(t, s, `import (
	"image"
	"github.com/gnnlab/gnnlab/viz/display"
)
type point struct{ X, Y int }
type badge struct{ label string }
func (b badge) Render() display.Bundle {
	return display.HTMLBundle("<b>"+b.label+"</b>", b.label)
}
type broken struct{}
func (broken) Render() display.Bundle { panic("no ink") }`)
	tests := []struct {
		cell     string
		mime     string
		contains string
	}{
		{`[]point{{1, 2}, {3, 4}}`, "text/html", "<th>X</th><th>Y</th>"},
		{`map[string]int{"a": 1}`, "text/html", "<th>a</th><td>1</td>"},
		{`image.NewRGBA(image.Rect(0, 0, 8, 4))`, "text/plain", "<image 8x4>"},
		{`image.NewRGBA(image.Rect(0, 0, 8, 4))`, "image/png", ""},
		{`badge{"new"}`, "text/html", "<b>new</b>"},
		{`display.MarkdownBundle("# title")`, "text/markdown", "# title"},
		{`broken{}`, "text/plain", "no ink"},
		{`[]int{1, 2}`, "text/plain", "[1 2]"},
	}
	for _, tt := range tests {
		res := mustEval(t, s, tt.cell)
		if !res.HasValue {
			t.Errorf("Eval(%q).HasValue = false, want true", tt.cell)
			continue
		}
		data, ok := res.Value.Data[tt.mime].(string)
		if !ok || !strings.Contains(data, tt.contains) {
			t.Errorf("Eval(%q)[%s] = %q, want it to contain %q", tt.cell, tt.mime, data, tt.contains)
		}
	}
	if res := mustEval(t, s, `[]int{1, 2}`); res.Value.Data["text/html"] != nil {
		t.Errorf("a slice of ints shows HTML %v, want text only", res.Value.Data["text/html"])
	}
}
