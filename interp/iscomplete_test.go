package interp

import "testing"

func TestIsComplete(t *testing.T) {
	s := newTestSession(t, Options{})
	tests := []struct {
		code, status, indent string
	}{
		{"x := 1", "complete", ""},
		{"", "complete", ""},
		{"func f() {", "incomplete", "\t"},
		{"for i := 0; i < 3; i++ {\n\tif i > 1 {", "incomplete", "\t\t"},
		{"x := []int{1,\n", "incomplete", "\t"},
		{"s := `raw", "incomplete", ""},
		{"/* comment", "incomplete", ""},
		{"x := )", "invalid", ""},
		{"fmt.Println(\"a\",", "incomplete", "\t"},
		{"x := 1 +", "incomplete", ""},
		{"y :=", "incomplete", ""},
		{"x := 1 2", "invalid", ""},
		{"import \"fmt\"\nfmt.Println(1)", "complete", ""},
		{"func f() {}\nf()", "complete", ""},
	}
	for _, tt := range tests {
		status, indent := s.IsComplete(tt.code)
		if status != tt.status || indent != tt.indent {
			t.Errorf("IsComplete(%q) = %q, %q, want %q, %q", tt.code, status, indent, tt.status, tt.indent)
		}
	}
}

func TestIsCompleteOpenImport(t *testing.T) {
	s := newTestSession(t, Options{})
	for _, code := range []string{"import (", "import (\n\t\"image\""} {
		if got, _ := s.IsComplete(code); got != "incomplete" {
			t.Errorf("IsComplete(%q) = %q, want incomplete", code, got)
		}
	}
}
