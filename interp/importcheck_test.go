package interp

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestFailedImportKeepsSession checks that a cell refused for an import
// leaves nothing behind: not the packages imported beside it, not the
// declarations before it (yaegi had declared them, and a later cell
// failed with "redeclared in this block" or a nil pointer).
func TestFailedImportKeepsSession(t *testing.T) {
	tests := []struct {
		failing string
		after   []string
		want    string
	}{
		{"import (\n\t\"fmt\"\n\t\"embed\"\n)\n\nvar f embed.FS\ny := 3", []string{`fmt.Println(1)`, `y := 4; fmt.Println(y)`}, "1\n4\n"},
		{"import \"strings\"\nimport \"example.com/nope\"\nfunc g() string { return strings.ToUpper(\"a\") }", []string{`func g() int { return 1 }; fmt.Println(g())`, `import "strings"; fmt.Println(strings.ToUpper("b"))`}, "1\nB\n"},
		{"import \"embed\"\n//go:embed x\nvar s string\nfunc main() { fmt.Println(s) }", []string{`func main() { fmt.Println("main") }`}, "main\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		s := newTestSession(t, Options{Stdout: &out, Stderr: &bytes.Buffer{}})
		_, err := s.Eval(context.Background(), tt.failing)
		var e *Error
		if !errors.As(err, &e) || e.Name != nameCompile || !strings.Contains(e.Value, "not available") {
			t.Fatalf("Eval(%q) = %v, want a compile error saying the package is not available", tt.failing, err)
		}
		for _, c := range tt.after {
			mustEval(t, s, c)
		}
		if got := out.String(); got != tt.want {
			t.Errorf("after Eval(%q): cells printed %q, want %q", tt.failing, got, tt.want)
		}
	}
}
