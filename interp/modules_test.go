package interp

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeTree writes files (slash-separated names relative to dir).
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// greetModule is a module with a package, a subpackage that imports it,
// and packages that the interpreter cannot run.
var greetModule = map[string]string{
	"go.mod":            "module example.com/greet\n\ngo 1.22\n",
	"greet.go":          "package greet\n\n// Hello greets name.\nfunc Hello(name string) string { return \"hello, \" + name }\n",
	"shout/shout.go":    "package shout\n\nimport (\n\t\"strings\"\n\n\t\"example.com/greet\"\n)\n\nfunc Hello(name string) string { return strings.ToUpper(greet.Hello(name)) + \"!\" }\n",
	"cgo/cgo.go":        "package cgo\n\n// #include <stdlib.h>\nimport \"C\"\n\nfunc F() {}\n",
	"lowlevel/low.go":   "package lowlevel\n\nimport \"unsafe\"\n\nfunc Size() uintptr { return unsafe.Sizeof(0) }\n",
	"useunsafe/use.go":  "package useunsafe\n\nimport \"example.com/greet/lowlevel\"\n\nfunc Size() uintptr { return lowlevel.Size() }\n",
	"greet_test.go":     "package greet\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
	"internal/x/x.go":   "package x\n\nconst X = 1\n",
	"usegeneric/g.go":   "package usegeneric\n\nimport \"slices\"\n\nfunc Sort(x []int) { slices.Sort(x) }\n",
	"state/state.go":    "package state\n\nimport \"io\"\n\nvar eof = io.EOF\n\nvar n int\n\nfunc init() { n = 41 }\n\n// N counts from 42.\nfunc N() (int, bool) { n++; return n, eof != nil }\n",
	"README.md":         "not Go\n",
	"shout/shout_os.go": "//go:build plan9\n\npackage shout\n\nfunc Hello() {}\n",
}

// needGo skips a test of %go get where there is no go command, and keeps
// the go command offline: no proxy, no toolchain downloads.
func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command in PATH")
	}
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOTOOLCHAIN", "local")
	t.Setenv("GOFLAGS", "-modcacherw")
}

func evalErr(t *testing.T, s *Session, cell string) *Error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := s.Eval(ctx, cell)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Eval(%q) = %v, want an *Error", cell, err)
	}
	return e
}

// TestGoGetLocal adds a local module: its packages are interpreted from
// source, a package that imports another of the module works, and those
// that the interpreter cannot run are refused at the import with the
// reason.
func TestGoGetLocal(t *testing.T) {
	needGo(t)
	dir := t.TempDir()
	writeTree(t, dir, greetModule)
	var out, errs bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &errs})
	t.Cleanup(func() { s.Close() })
	mustEval(t, s, "%go get "+dir)
	if got := out.String(); !strings.Contains(got, "example.com/greet/shout") || strings.Contains(got, "example.com/greet/cgo") {
		t.Errorf("%%go get printed %q, want the importable packages (shout, not cgo)", got)
	}
	if got, want := s.Modules(), []string{dir}; !slices.Equal(got, want) {
		t.Errorf("Modules() = %q, want %q", got, want)
	}
	out.Reset()
	mustEval(t, s, "import \"example.com/greet\"\nfmt.Println(greet.Hello(\"gnn\"))")
	mustEval(t, s, "import \"example.com/greet/shout\"\nfmt.Println(shout.Hello(\"gnn\"))")
	// The package's variables keep their values between cells.
	mustEval(t, s, "import \"example.com/greet/state\"\nfmt.Println(state.N())")
	mustEval(t, s, "fmt.Println(state.N())")
	if got, want := out.String(), "hello, gnn\nHELLO, GNN!\n42 true\n43 true\n"; got != want {
		t.Errorf("cells printed %q, want %q", got, want)
	}
	// What yaegi cannot compile in a module fails the cell at its
	// import, naming the construct.
	if e := evalErr(t, s, "import \"example.com/greet/usegeneric\"\nvar _ = 1"); !strings.Contains(e.Value, "slices.Sort") || !strings.HasPrefix(strings.Join(e.Traceback, "\n"), "cell[5]:1:8: ") || strings.Contains(e.Value+strings.Join(e.Traceback, "\n"), modRoot) {
		t.Errorf("import of usegeneric: %s: %s %q, want an error at the import naming slices.Sort", e.Name, e.Value, e.Traceback)
	}
	for _, tt := range []struct{ path, why string }{
		{"example.com/greet/cgo", "cgo"},
		{"example.com/greet/useunsafe", `imports example.com/greet/lowlevel, which the interpreter cannot run: it imports "unsafe"`},
		{"example.com/greet/nosuch", "not available"},
	} {
		e := evalErr(t, s, "import \""+tt.path+"\"\nvar _ = 1")
		if e.Name != nameCompile || !strings.Contains(e.Value, tt.why) || !strings.Contains(e.Value, tt.path) {
			t.Errorf("import %q: error %s: %s, want a compile error naming it and %q", tt.path, e.Name, e.Value, tt.why)
		}
	}
	out.Reset()
	mustEval(t, s, "%go list")
	if got := out.String(); !strings.HasPrefix(got, dir+": example.com/greet ") {
		t.Errorf("%%go list printed %q, want the folder and its packages", got)
	}
}

// TestGoGetProxy gets a version of a module from a module proxy that the
// test builds (GOPROXY=file://...), into a module cache of its own: the
// version is resolved and pinned, a cell calls the module, and unknown
// modules and versions fail with the go command's words.
func TestGoGetProxy(t *testing.T) {
	needGo(t)
	proxy := t.TempDir()
	for _, v := range []string{"v1.0.0", "v1.1.0"} {
		writeProxyVersion(t, proxy, "example.com/hello", v, map[string]string{
			"go.mod":   "module example.com/hello\n\ngo 1.22\n",
			"hello.go": "package hello\n\nfunc Version() string { return \"" + v + "\" }\n",
		})
	}
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOMODCACHE", t.TempDir())
	var out, errs bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &errs})
	t.Cleanup(func() { s.Close() })
	mustEval(t, s, "%go get example.com/hello@v1.0.0")
	if got, want := s.Modules(), []string{"example.com/hello@v1.0.0"}; !slices.Equal(got, want) {
		t.Errorf("Modules() = %q, want %q", got, want)
	}
	res := mustEval(t, s, "import \"example.com/hello\"\nhello.Version()")
	if got := res.Value.Text(); got != `"v1.0.0"` {
		t.Errorf("hello.Version() = %s, want \"v1.0.0\"", got)
	}
	for _, spec := range []string{"example.com/nosuch", "example.com/hello@v9.0.0"} {
		e := evalErr(t, s, "%go get "+spec)
		if e.Name != nameMagic || !strings.Contains(e.Value, "%go get "+spec+": ") {
			t.Errorf("%%go get %s: error %s: %s, want a magic error naming it", spec, e.Name, e.Value)
		}
	}
	// A fresh session given Modules() gets the pinned version, not the
	// latest.
	s2 := newTestSession(t, Options{Stdout: &out, Stderr: &bytes.Buffer{}})
	t.Cleanup(func() { s2.Close() })
	mustEval(t, s2, "%go get "+strings.Join(s.Modules(), " "))
	if res := mustEval(t, s2, "import \"example.com/hello\"\nhello.Version()"); res.Value.Text() != `"v1.0.0"` {
		t.Errorf("after restoring %q: hello.Version() = %s, want \"v1.0.0\"", s.Modules(), res.Value.Text())
	}
	// Another version replaces the module's entry; the imported
	// package stays as it was, and the session says so.
	mustEval(t, s, "%go get example.com/hello@v1.1.0")
	if got, want := s.Modules(), []string{"example.com/hello@v1.1.0"}; !slices.Equal(got, want) {
		t.Errorf("Modules() after getting v1.1.0 = %q, want %q", got, want)
	}
	if !strings.Contains(errs.String(), "example.com/hello changed version") {
		t.Errorf("stderr = %q, want a note that example.com/hello changed version", errs.String())
	}
	if res := mustEval(t, s, "hello.Version()"); res.Value.Text() != `"v1.0.0"` {
		t.Errorf("hello.Version() after getting v1.1.0 = %s, want the imported \"v1.0.0\"", res.Value.Text())
	}
}

// writeProxyVersion writes one version of a module in the layout of a
// GOPROXY (go help goproxy): list, .info, .mod and .zip.
func writeProxyVersion(t *testing.T, proxy, mod, version string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(proxy, filepath.FromSlash(mod), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	list, _ := os.ReadFile(filepath.Join(dir, "list"))
	list = append(list, version+"\n"...)
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, text := range files {
		w, err := zw.Create(mod + "@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(text))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":            list,
		version + ".info": []byte(`{"Version":"` + version + `","Time":"2025-01-01T00:00:00Z"}`),
		version + ".mod":  []byte(files["go.mod"]),
		version + ".zip":  zb.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGoGetErrors checks the magic's own errors.
func TestGoGetErrors(t *testing.T) {
	needGo(t)
	s := newTestSession(t, Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	t.Cleanup(func() { s.Close() })
	for _, tt := range []struct{ cell, want string }{
		{"%go get", "needs a module"},
		{"%go build", "unknown command"},
		{"%go get " + t.TempDir(), "not a module folder"},
	} {
		if e := evalErr(t, s, tt.cell); e.Name != nameMagic || !strings.Contains(e.Value, tt.want) {
			t.Errorf("%s: error %s: %s, want a magic error with %q", tt.cell, e.Name, e.Value, tt.want)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if e := evalErr(t, s, "%go get example.com/x"); !strings.Contains(e.Value, "go command") {
		t.Errorf("%%go get without a go command: %s, want it to say so", e.Value)
	}
}
