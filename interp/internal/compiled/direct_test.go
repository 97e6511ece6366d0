package compiled

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// builders returns a builder that runs the compiler and linker directly
// and one that runs the go command, or skips where plugins cannot work.
func builders(t *testing.T) (direct, gocmd *Builder) {
	t.Helper()
	env, err := Detect()
	if err != nil {
		t.Skipf("no compiled tier here: %v", err)
	}
	for _, b := range []**Builder{&direct, &gocmd} {
		nb, err := NewBuilder(env)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nb.Close() })
		*b = nb
	}
	if direct.direct == nil {
		t.Skipf("the host's build flags %q are left to the go command", env.Flags)
	}
	gocmd.direct = nil
	return direct, gocmd
}

// cellSource is a cell's plugin package: its Symbols hold its
// functions F (returns a value) and P (panics on its line 3).
func cellSource(name, body string) []byte {
	return fmt.Appendf(nil, `package main

import (
	"strconv"

	gnnlabrt %q
)

%s

var Symbols = map[string]any{"F": F, "P": P}

var _ = strconv.Itoa
var _ = gnnlabrt.Check
`, RuntimePath, body)
}

const cellBody = `//line cell[1]:1:1
func F(n int) string { gnnlabrt.Check(); return strconv.Itoa(n * n) }
func P() { var a []int
	_ = a[3] }`

// TestDirectBuild builds the same cell with the compiler and linker
// directly and with the go command: both plugins load, give the same
// results, panic on the same cell line, and a cell that does not compile
// fails with the same message.
func TestDirectBuild(t *testing.T) {
	direct, gocmd := builders(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	type outcome struct {
		f     string
		panic string
		line  string
	}
	run := func(b *Builder, name string) outcome {
		p, err := b.Build(ctx, name, cellSource(name, cellBody))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Loaded, the plugin needs neither its file nor its package.
		for _, f := range []string{name + ".so", name} {
			if _, err := os.Stat(filepath.Join(b.dir, f)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: %s left after loading (%v)", name, f, err)
			}
		}
		if p.Direct != (b == direct) {
			t.Errorf("%s: Direct = %v, want %v (%q)", name, p.Direct, b == direct, direct.direct.off)
		}
		var o outcome
		o.f = p.Symbols["F"].Call([]reflect.Value{reflect.ValueOf(12)})[0].String()
		func() {
			defer func() {
				o.panic = fmt.Sprint(recover())
				o.line = panicLine()
			}()
			p.Symbols["P"].Call(nil)
		}()
		return o
	}
	d := run(direct, "cd_"+direct.id)
	g := run(gocmd, "cg_"+gocmd.id)
	if d != g {
		t.Errorf("direct build: %+v, go build: %+v", d, g)
	}
	if d.f != "144" || !strings.Contains(d.panic, "index out of range [3]") || d.line != "cell[1]:3" {
		t.Errorf("direct build: %+v, want F(12) = 144 and an index panic at cell[1]:3", d)
	}

	// The same broken cell in both (a plugin that is not loaded may
	// share its name).
	broken := cellSource("cbad", "func F(n int) string { return x }\nfunc P() {}")
	_, errD := direct.Build(ctx, "cbad", broken)
	_, errG := gocmd.Build(ctx, "cbad", broken)
	var bd, bg *BuildError
	if !errors.As(errD, &bd) || !errors.As(errG, &bg) {
		t.Fatalf("broken cell: errors %v and %v, want *BuildError", errD, errG)
	}
	if bd.Error() != bg.Error() || !strings.Contains(bd.Error(), "cbad/cell.go:9:31: undefined: x") {
		t.Errorf("broken cell: direct build says %q, go build says %q", bd.Error(), bg.Error())
	}
	// A stale import configuration (the go command's cache trimmed)
	// is listed again, not reported.
	for p := range direct.direct.files {
		direct.direct.files[p] += ".gone"
		break
	}
	name := "cs_" + direct.id
	if p, err := direct.Build(ctx, name, cellSource(name, cellBody)); err != nil || !p.Direct {
		t.Errorf("after a stale configuration: %v (direct %v, off %q)", err, p != nil && p.Direct, direct.direct.off)
	}
}

// panicLine returns the cell line of the innermost frame in a cell of
// the panicking goroutine ("cell[1]:4"), called by a deferred function.
func panicLine() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.File, "cell[") {
			return fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		if !more {
			return ""
		}
	}
}

// TestModuleParent: sessions make their modules in the temporary
// directory, unless it is a tmpfs (where a loaded plugin's pages would be
// memory): then in the user's cache directory.
func TestModuleParent(t *testing.T) {
	disk := t.TempDir()
	if onTmpfs(disk) {
		t.Skipf("the temporary directory %s is a tmpfs already", disk)
	}
	if !onTmpfs("/dev/shm") {
		t.Skip("no tmpfs at /dev/shm")
	}
	shm, err := os.MkdirTemp("/dev/shm", "gnnlab-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	t.Setenv("XDG_CACHE_HOME", disk)
	t.Setenv("TMPDIR", disk)
	if got := moduleParent(); got != disk {
		t.Errorf("TMPDIR on a disk: moduleParent() = %s, want %s", got, disk)
	}
	t.Setenv("TMPDIR", shm)
	if got, want := moduleParent(), filepath.Join(disk, "gnnlab", "cells"); got != want {
		t.Errorf("TMPDIR on a tmpfs: moduleParent() = %s, want %s", got, want)
	}
	t.Setenv("XDG_CACHE_HOME", shm)
	if got := moduleParent(); got != shm {
		t.Errorf("both on a tmpfs: moduleParent() = %s, want %s", got, shm)
	}
}

// TestRequireModulesKeepsTheBinarysVersions: a %go get module whose
// requirements would move a module the binary was built with to a newer
// version is refused, and the cells' module stays as it was (an older
// one: TestSatisfies, and TestCompiledModuleOlderRequirement of interp).
func TestRequireModulesKeepsTheBinarysVersions(t *testing.T) {
	b, _ := builders(t)
	ctx := context.Background()
	mf, err := b.modEdit(ctx, b.dir)
	if err != nil || len(mf.Require) == 0 {
		t.Fatalf("the cells' module: %+v, %v", mf, err)
	}
	dep := mf.Require[0]
	for _, r := range mf.Require {
		if strings.HasPrefix(r.Version, "v0.") || strings.HasPrefix(r.Version, "v1.") {
			dep = r
			break
		}
	}
	moved := dep.Version[:2] + ".999.0"
	session := t.TempDir()
	mod := fmt.Sprintf("module gnnlab.session\n\ngo 1.22\n\nrequire %s %s\n", dep.Path, moved)
	if err := os.WriteFile(filepath.Join(session, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(b.dir, "go.mod"))
	err = b.requireModules(ctx, session)
	if err == nil || !strings.Contains(err.Error(), "newer than the "+dep.Version+" the binary was built with") {
		t.Errorf("requireModules(%s %s) = %v, want a refusal naming %s", dep.Path, moved, err, dep.Version)
	}
	if after, _ := os.ReadFile(filepath.Join(b.dir, "go.mod")); string(after) != string(before) {
		t.Errorf("the cells' go.mod changed:\n%s", after)
	}
}
