package runner_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/runner"
)

// TestRunModules runs a notebook that adds a local module with %go get,
// restarts the worker and imports the module again: gnnlab run restores
// the module on the fresh worker.
func TestRunModules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
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
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	nb := &runner.Notebook{NBFormat: 4, NBFormatMinor: 5, Cells: []*runner.Cell{
		{CellType: "code", Source: runner.Source("%go get " + dir)},
		{CellType: "code", Source: "import \"example.com/greet\"\nfmt.Println(greet.Hello(\"a\"))"},
		{CellType: "code", Source: "%restart"},
		{CellType: "code", Source: "import \"example.com/greet\"\nfmt.Println(greet.Hello(\"b\"))"},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if err := runner.Run(ctx, nb, runner.Options{Worker: []string{exe, "worker"}}); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[int]string{1: "hello, a\n", 3: "hello, b\n"} {
		if got := outputsText(nb.Cells[k]); !strings.Contains(got, want) {
			t.Errorf("cell %d outputs = %q, want %q", k, got, want)
		}
	}
}
