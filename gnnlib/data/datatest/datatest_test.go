package datatest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDir(t *testing.T) {
	t.Setenv("GNNLAB_DATA", "/some/where")
	if got := Dir(); got != "/some/where" {
		t.Errorf("Dir() with GNNLAB_DATA = %q, want it", got)
	}
	t.Setenv("GNNLAB_DATA", "")
	// From this package's folder the module root is three levels up.
	root, _ := filepath.Abs("../../..")
	if got, want := Dir(), filepath.Join(filepath.Dir(root), "shared", "datasets"); got != want {
		t.Errorf("Dir() = %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("test assumption: no go.mod in %s", root)
	}
}
