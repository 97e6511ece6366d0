package magic

import (
	"slices"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	tests := []struct {
		name string
		cell string
		want []int // the lines that are magics
	}{
		{"plain go", "x := 1\nx", nil},
		{"line magic", "x := 1\n%time x\n!ls", []int{1, 2}},
		{"first line", "%who\nx := 1", []int{0}},
		{"raw string", "s := `\n%time\n!not a command\n`\nlen(s)", nil},
		{"after raw string", "s := `a\n`\n%who", []int{2}},
		{"block comment", "/*\n%time\n*/\n!echo yes", []int{3}},
		{"in a block", "for i := 0; i < 2; i++ {\n%time f()\n}\n%who", []int{3}},
		{"in parens", "x := (1 +\n!ok)", nil},
		{"continued", "ok := a &&\n!b", nil},
		{"quote in magic", "!echo it's\nx := `\n%who\n`", []int{0}},
		{"after statement on line", "x := 1; y := 2\n%who", []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := strings.Split(tt.cell, "\n")
			got := Lines(tt.cell, lines)
			var idx []int
			for k, m := range got {
				if m {
					idx = append(idx, k)
				}
			}
			if !slices.Equal(idx, tt.want) {
				t.Errorf("Lines(%q) = lines %v, want %v", tt.cell, idx, tt.want)
			}
		})
	}
}
