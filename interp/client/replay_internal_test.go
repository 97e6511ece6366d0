package client

import (
	"slices"
	"testing"
)

func TestDeclaredNames(t *testing.T) {
	tests := []struct {
		code string
		want []string
	}{
		{"x := 1", []string{"x"}},
		{"a, b := 1, 2\nc = 3", []string{"a", "b"}},
		{"import \"fmt\"\nvar v, w int\nconst k = 1\ntype pt struct{ x int }\nfunc (p pt) m() {}\nfunc f() {\n\ty := 2\n\t_ = y\n}\nz := f\nfmt.Println(z)", []string{"v", "w", "k", "pt", "f", "z"}},
		{"for i := 0; i < 3; i++ {\n\tn := i\n\t_ = n\n}", nil},
		{"data, err := os.ReadFile(\"x\"); if err != nil { panic(err) }", []string{"data", "err"}},
		{"var (\n\tp = 1\n\tq = 2\n)\n_ = p", []string{"p", "q"}},
		{"x := (", nil},
	}
	for _, tt := range tests {
		if got := declaredNames(tt.code); !slices.Equal(got, tt.want) {
			t.Errorf("declaredNames(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
}
