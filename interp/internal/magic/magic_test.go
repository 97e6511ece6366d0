package magic

import (
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		line, name, args string
		ok               bool
	}{
		{"%time f()", "time", "f()", true},
		{"!ls -l", "!", "ls -l", true},
		{"%%writefile a.txt", "%writefile", "a.txt", true},
		{"x % 2", "", "", false},
		{"%", "", "", false},
		{" %time", "", "", false},
	}
	for _, tt := range tests {
		name, args, ok := Split(tt.line)
		if name != tt.name || args != tt.args || ok != tt.ok {
			t.Errorf("Split(%q) = %q, %q, %v, want %q, %q, %v", tt.line, name, args, ok, tt.name, tt.args, tt.ok)
		}
	}
	if !strings.Contains(HelpText(), "%timeit") {
		t.Errorf("HelpText() lacks %%timeit")
	}
}
