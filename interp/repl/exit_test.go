package repl_test

import (
	"strings"
	"testing"
)

// TestExit: exit (or quit) ends the REPL; what follows does not run.
func TestExit(t *testing.T) {
	for _, word := range []string{"exit", "quit()"} {
		stdout, stderr, code := runREPL(t, "import \"fmt\"\nfmt.Println(\"before\")\n"+word+"\nfmt.Println(\"after\")\n")
		if code != 0 || stdout != "before\n" || strings.Contains(stderr, "undefined") {
			t.Errorf("REPL with %s: stdout %q, stderr %q, exit %d; want \"before\\n\" and 0", word, stdout, stderr, code)
		}
	}
}
