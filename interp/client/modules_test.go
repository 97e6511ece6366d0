package client_test

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestModulesSurviveRestart adds a local module with %go get; after
// %restart and after a worker crash, a cell that imports the module's
// package works without running %go get again.
func TestModulesSurviveRestart(t *testing.T) {
	if _, err := osexec.LookPath("go"); err != nil {
		t.Skip("no go command in PATH")
	}
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOTOOLCHAIN", "local")
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":   "module example.com/greet\n\ngo 1.22\n",
		"greet.go": "package greet\n\nfunc Hello(name string) string { return \"hello, \" + name }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, out := start(t)
	if _, ce := exec(t, c, "%go get "+dir); ce != nil {
		t.Fatalf("%%go get = %+v", ce)
	}
	if got, want := c.Modules(), []string{dir}; !slices.Equal(got, want) {
		t.Errorf("Modules() = %q, want %q", got, want)
	}
	const cell = "import \"example.com/greet\"\ngreet.Hello(\"gnn\")"
	check := func(after string) {
		t.Helper()
		if got, ce := exec(t, c, cell); ce != nil || got != `"hello, gnn"` {
			t.Errorf("after %s: greet.Hello = %q, %+v, want \"hello, gnn\"", after, got, ce)
		}
	}
	check("%go get")
	if _, ce := exec(t, c, "%restart"); ce != nil {
		t.Fatalf("%%restart = %+v", ce)
	}
	if got := out.take(); !strings.Contains(got, "Restoring the modules of %go get: "+dir) {
		t.Errorf("%%restart printed %q, want it to restore the module", got)
	}
	check("%restart")
	if _, ce := exec(t, c, "import \"time\"\ngo func() { panic(\"boom\") }()\ntime.Sleep(5 * time.Second)"); ce == nil || ce.Name != "worker crashed" {
		t.Fatalf("goroutine panic cell error = %+v, want a crash", ce)
	}
	check("a crash")
	if got, want := c.Modules(), []string{dir}; !slices.Equal(got, want) {
		t.Errorf("Modules() after the crash = %q, want %q", got, want)
	}
}
