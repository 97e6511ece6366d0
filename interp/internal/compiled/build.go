package compiled

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

// Builder builds the cells of one session into plugins, in a module of
// its own (a temporary directory) that requires the checkout.
type Builder struct {
	env Env
	// Around runs the plugin's loading, which runs its init functions
	// and variable initialisers (the session captures their output).
	Around    func(load func())
	dir       string
	id        string // distinguishes the session's plugins from other sessions'
	n         int
	direct    *direct // nil: the go command builds each cell
	keepPages bool    // Tier.KeepPages
	// required is the session module's go.mod last required (%go get).
	required string
	// added are the modules that go.mod requires for %go get (those of
	// the session's module that the binary was not built with).
	added []string
}

// NewBuilder makes the session's module.
func NewBuilder(env Env) (*Builder, error) {
	dir, err := os.MkdirTemp(moduleParent(), "gnnlab-cells-")
	if err != nil {
		return nil, err
	}
	if err := writeModule(dir, env); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	id := filepath.Base(dir)
	id = id[strings.LastIndexByte(id, '-')+1:]
	return &Builder{env: env, dir: dir, id: id, direct: newDirect(env, dir)}, nil
}

// Close removes the module (loaded plugins stay loaded).
func (b *Builder) Close() error { return os.RemoveAll(b.dir) }

// moduleParent is where sessions make their modules: the temporary
// directory, unless it is a tmpfs and the user's cache directory is not.
// A loaded plugin's file pages stay resident as long as it is mapped; on
// a disk the kernel can drop them (they are clean page cache), in a tmpfs
// they are memory (about 2 MiB a cell, measured by make bench-cells).
func moduleParent() string {
	tmp := os.TempDir()
	if !onTmpfs(tmp) {
		return tmp
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return tmp
	}
	dir := filepath.Join(cache, "gnnlab", "cells")
	if err := os.MkdirAll(dir, 0o755); err != nil || onTmpfs(dir) {
		return tmp
	}
	return dir
}

// ModPath is the module of the cells' plugins.
const ModPath = "gnnlab.cells"

// writeModule writes go.mod (the checkout's requirements, so that every
// module is at the version the host was built with, and a replace of
// the checkout) and the checkout's go.sum.
func writeModule(dir string, env Env) error {
	mod, err := os.ReadFile(filepath.Join(env.Checkout, "go.mod"))
	if err != nil {
		return err
	}
	var gm strings.Builder
	fmt.Fprintf(&gm, "module %s\n", ModPath)
	inTool := false
	for _, line := range strings.Split(string(mod), "\n")[1:] {
		switch {
		case inTool:
			inTool = strings.TrimSpace(line) != ")"
			continue
		case strings.HasPrefix(line, "tool ("):
			inTool = true
			continue
		case strings.HasPrefix(line, "tool ") || strings.HasPrefix(line, "toolchain "):
			continue
		}
		gm.WriteString(line + "\n")
	}
	fmt.Fprintf(&gm, "\nrequire %s v0.0.0\n\nreplace %s => %s\n", Module, Module, env.Checkout)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gm.String()), 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(env.Checkout, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
}

// Plugin is one built and loaded cell.
type Plugin struct {
	Key     string // the yaegi key of its symbols: "path/name"
	Path    string // its import path in cells
	Symbols map[string]reflect.Value
	Build   time.Duration // compile and link
	Load    time.Duration // plugin.Open
	Direct  bool          // built by the compiler and linker without the go command
	// BuildCPU is the processor time of the build's processes (the
	// go command or the tools, with their children): unlike Build, it
	// hardly depends on how busy the machine is.
	BuildCPU time.Duration
	// Dropped is the size of the read-only mappings of its file whose
	// pages the kernel was asked to reclaim once it loaded (Linux).
	Dropped uintptr
	file    string // as /proc/self/maps names it
}

// DropPages asks the kernel again to reclaim the pages of the plugin's
// read-only mappings (those read since it loaded, such as the type
// descriptors the interpreter reads when it takes the symbols); those
// still in use fault back in. It returns the bytes advised, 0 where
// only Linux can.
func (p *Plugin) DropPages() uintptr { return DropPages([]*Plugin{p}) }

// DropPages is Plugin.DropPages for the plugins ps, reading the process's
// mappings once.
func DropPages(ps []*Plugin) uintptr {
	files := map[string]bool{}
	for _, p := range ps {
		if p.file != "" {
			files[p.file] = true
		}
	}
	if len(files) == 0 {
		return 0
	}
	return dropPages(files)
}

// BuildError is a plugin that did not build; Output is the compiler's.
type BuildError struct {
	Output string
	Tool   string // the tool that failed when the go command did not run it
}

func (e *BuildError) Error() string {
	s := strings.TrimSpace(e.Output)
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return "compiled: build failed: " + strings.Join(lines, "; ")
}

// Build writes src (a package main whose Symbols, a map[string]any,
// holds its values by their yaegi names) as the next cell package name, builds it as a plugin and
// loads it.
func (b *Builder) Build(ctx context.Context, name string, src []byte) (*Plugin, error) {
	return b.BuildEmbedding(ctx, name, src, nil)
}

// BuildEmbedding is Build for a cell whose //go:embed directives name
// files (pattern -> the file, as embedFiles returns them): they are
// copied into the cell's package.
func (b *Builder) BuildEmbedding(ctx context.Context, name string, src []byte, files map[string]string) (*Plugin, error) {
	b.n++
	pkgDir := filepath.Join(b.dir, name)
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(pkgDir, "cell.go"), src, 0o644); err != nil {
		return nil, err
	}
	embedCfg := ""
	if len(files) > 0 {
		var err error
		if embedCfg, err = copyEmbedded(pkgDir, files); err != nil {
			os.RemoveAll(pkgDir)
			return nil, err
		}
	}
	so := filepath.Join(b.dir, name+".so")
	path := ModPath + "/" + name
	t0 := time.Now()
	// The plugin's file and its package go once it is loaded (or failed):
	// the mapping keeps the file's pages, and a session that ends without
	// Close (a crash) leaves only go.mod behind.
	defer os.RemoveAll(pkgDir)
	defer os.Remove(so)
	cpu, err := b.build(ctx, pkgDir, path, so, src, embedCfg)
	if err != nil {
		return nil, err
	}
	t1 := time.Now()
	var syms map[string]reflect.Value
	load := func() { syms, err = open(so) }
	if b.Around != nil {
		b.Around(load)
	} else {
		load()
	}
	if err != nil {
		return nil, &Reason{b.loadFailure(err)}
	}
	p := &Plugin{Path: path, Build: t1.Sub(t0), Load: time.Since(t1), Direct: b.direct != nil && b.direct.off == "", BuildCPU: cpu}
	// What loading read of the file (relocation tables, symbols, the
	// pclntab the runtime checks) need not stay resident; the code a
	// later cell runs faults back in.
	p.file = realPath(so)
	if !b.keepPages {
		p.Dropped = dropPages(map[string]bool{p.file: true})
	}
	p.Key = p.Path + "/" + name
	p.Symbols = syms
	return p, nil
}

// build builds the plugin: directly (direct.go) while that works, else
// with the go command.
func (b *Builder) build(ctx context.Context, pkgDir, path, so string, src []byte, embedCfg string) (cpu time.Duration, err error) {
	if d := b.direct; d != nil && d.off == "" {
		d.cpu = 0
		err := d.build(ctx, b.dir, pkgDir, path, so, src, embedCfg)
		if err == errStale {
			// The go command's cache lost a file: list everything again.
			d.files, d.listed = map[string]string{}, false
			err = d.build(ctx, b.dir, pkgDir, path, so, src, embedCfg)
		}
		var be *BuildError
		switch {
		case err == nil:
			return d.cpu, nil
		case ctx.Err() != nil:
			return 0, ctx.Err()
		case errors.As(err, &be) && (be.Tool == "compile" || be.Tool == "list"):
			return 0, err // the cell's own error, as go build would say it
		}
		// A linker failure or a stale file again: the go command builds
		// this cell and the later ones.
		d.off = err.Error()
	}
	args := append([]string{"build", "-buildmode=plugin", "-o", so}, b.env.Flags...)
	args = append(args, "./"+filepath.Base(pkgDir))
	cmd := exec.CommandContext(ctx, b.env.GoBin, args...)
	cmd.Dir = b.dir
	cmd.Env = append(os.Environ(), b.env.Vars...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, &BuildError{Output: out.String()}
	}
	return cpuOf(cmd), nil
}

// requireModules adds to the cells' module the requirements and
// replacements of the session's module (what %go get added), and its
// go.sum, so that a cell's plugin can link the modules' packages. The
// direct builder lists their packages when a cell first imports them.
func (b *Builder) requireModules(ctx context.Context, modDir string) error {
	sessionMod, err := os.ReadFile(filepath.Join(modDir, "go.mod"))
	if err != nil {
		return err
	}
	if string(sessionMod) == b.required {
		return nil
	}
	mf, err := b.modEdit(ctx, modDir)
	if err != nil {
		return err
	}
	before, err := b.modEdit(ctx, b.dir)
	if err != nil {
		return err
	}
	// A module whose packages the binary links stays at the binary's
	// version: a plugin holding another build of one of its packages
	// would not load. Minimal version selection keeps it where a module
	// requires it at that version or an older one (the binary's version
	// satisfies the requirement); a newer one is refused, keeping the
	// cells' module as it was. A module that the checkout's go.mod lists
	// but whose packages the binary does not link (github.com/google/uuid
	// v1.1.1, a requirement of a requirement) moves to a newer version
	// freely, as a module that %go get added may (loadFailure says what
	// that does).
	had := map[string]string{}
	for _, r := range before.Require {
		had[r.Path] = r.Version
	}
	// The versions that the session's module selects, not only those its
	// go.mod lists: a local module's requirements of modules that provide
	// none of its packages are in its own go.mod alone.
	selected, err := b.selected(ctx, modDir)
	if err != nil {
		return err
	}
	move := map[string]string{} // unlinked modules to require at a newer version
	for _, r := range selected {
		v, ok := had[r.Path]
		if !ok || slices.Contains(b.added, r.Path) {
			continue
		}
		if linked == nil || linked[r.Path] {
			if _, err := satisfies(r.Path, r.Version, v); err != nil {
				return err
			}
		} else if semver.Compare(r.Version, v) > 0 {
			move[r.Path] = r.Version
		}
	}
	var added []string
	args := []string{"mod", "edit"}
	for _, r := range mf.Require {
		if _, ok := had[r.Path]; ok && !slices.Contains(b.added, r.Path) {
			continue // the binary's version stays, or move has it
		}
		added = append(added, r.Path)
		args = append(args, "-require="+r.Path+"@"+r.Version)
	}
	for p, v := range move {
		args = append(args, "-require="+p+"@"+v)
	}
	for _, r := range mf.Replace {
		old, nw := r.Old.Path, r.New.Path
		if r.Old.Version != "" {
			old += "@" + r.Old.Version
		}
		if r.New.Version != "" {
			nw += "@" + r.New.Version
		}
		args = append(args, "-replace="+old+"="+nw)
	}
	if len(args) == 2 {
		return nil
	}
	edit := exec.CommandContext(ctx, b.env.GoBin, args...)
	edit.Dir = b.dir
	edit.Env = append(os.Environ(), b.env.Vars...)
	if out, err := edit.CombinedOutput(); err != nil {
		return fmt.Errorf("go mod edit: %v: %s", err, firstLine(string(out)))
	}
	sum, err := os.ReadFile(filepath.Join(modDir, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	have, err := os.ReadFile(filepath.Join(b.dir, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(string(have), "\n") {
		seen[l] = true
	}
	var add strings.Builder
	for _, l := range strings.Split(string(sum), "\n") {
		if l != "" && !seen[l] {
			seen[l] = true
			add.WriteString(l + "\n")
		}
	}
	if add.Len() > 0 {
		f, err := os.OpenFile(filepath.Join(b.dir, "go.sum"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		_, err = f.WriteString(add.String())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	b.required, b.added = string(sessionMod), added
	return nil
}

// linked are the modules whose packages the binary links (its build
// information); nil where it names none (a test binary's does not), when
// every module that the checkout requires is taken to be linked.
var linked = func() map[string]bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok || len(bi.Deps) == 0 {
		return nil
	}
	m := map[string]bool{}
	for _, d := range bi.Deps {
		m[d.Path] = true
	}
	return m
}()

// SetLinked sets the modules whose packages the binary links, for tests
// (whose binaries' build information names none), and returns what
// restores the binary's.
func SetLinked(m map[string]bool) (restore func()) {
	old := linked
	linked = m
	return func() { linked = old }
}

// satisfies reports whether a module that the binary was built with at
// version built meets the requirement of path at version required, as
// minimal version selection decides it: an older or equal requirement is
// met by the binary's version (true: keep it), and a newer one is an
// error naming both versions and what to do.
func satisfies(path, required, built string) (bool, error) {
	if !semver.IsValid(required) || !semver.IsValid(built) {
		if required == built {
			return true, nil
		}
		return false, fmt.Errorf("it requires %s@%s, and the binary was built with %s (versions that cannot be compared)", path, required, built)
	}
	if semver.Compare(required, built) <= 0 {
		return true, nil
	}
	return false, fmt.Errorf("it requires %s@%s, newer than the %s the binary was built with (a process holds one version of a package): "+
		"use a version of the module that requires %s %s or older, or rebuild gnnlab with go get %s@%s in its checkout", path, required, built, path, built, path, required)
}

// loadFailure says why a plugin did not load. The runtime loads one
// build of a package in a process: a plugin holding another build of a
// package that the binary or an earlier plugin holds does not load. For a
// package of a module that %go get added, that is the module having
// changed since an earlier cell's plugin linked it (its folder edited, or
// another version got): the go command builds it again, the direct
// builder links the archive it listed first. Otherwise the binary is not
// what the checkout builds.
func (b *Builder) loadFailure(err error) string {
	msg := firstLine(err.Error())
	const differ = "plugin was built with a different version of package "
	if _, pkg, ok := strings.Cut(msg, differ); ok {
		pkg = strings.TrimSpace(pkg)
		for _, m := range b.added {
			if pkg == m || strings.HasPrefix(pkg, m+"/") {
				return "a cell's plugin does not load: it links package " + pkg + " as its module is now, and an earlier compiled cell of this session loaded the package as it was then (the module changed since: its folder was edited, or %go get took another version); a process loads one build of a package, so cells keep the first until %restart"
			}
		}
	}
	return "a cell's plugin does not load: " + msg + " (was the binary built from " + b.env.Checkout + " as it is now?)"
}

// modFile is what go mod edit -json says of a go.mod.
type modFile struct {
	Require []struct{ Path, Version string }
	Replace []struct {
		Old struct{ Path, Version string }
		New struct{ Path, Version string }
	}
}

func (b *Builder) modEdit(ctx context.Context, dir string) (modFile, error) {
	var mf modFile
	cmd := exec.CommandContext(ctx, b.env.GoBin, "mod", "edit", "-json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), b.env.Vars...)
	out, err := cmd.Output()
	if err != nil {
		return mf, fmt.Errorf("go mod edit -json: %w", err)
	}
	err = json.Unmarshal(out, &mf)
	return mf, err
}

// selected returns the module versions that the module in dir selects
// (go list -m -e all: with -e it names the version of a module whose
// go.mod it would have to download, without it).
func (b *Builder) selected(ctx context.Context, dir string) ([]struct{ Path, Version string }, error) {
	cmd := exec.CommandContext(ctx, b.env.GoBin, "list", "-m", "-e", "-f", "{{.Path}} {{.Version}}", "all")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), b.env.Vars...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m all: %v: %s", err, firstLine(stderr.String()))
	}
	var ms []struct{ Path, Version string }
	for _, l := range strings.Split(string(out), "\n") {
		if p, v, ok := strings.Cut(strings.TrimSpace(l), " "); ok {
			ms = append(ms, struct{ Path, Version string }{p, v})
		}
	}
	return ms, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
