package interp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gnnlab/gnnlab/interp/internal/compiled"
	"github.com/gnnlab/gnnlab/interp/internal/declname"
	"github.com/gnnlab/gnnlab/interp/internal/inspect"
)

// Third-party modules in cells: %go get.
//
// yaegi interprets a package from source when it finds it in a GOPATH
// tree. %go get MODULE[@VERSION] runs the go command in a main module of
// the session's own (a temporary folder holding a go.mod): go get
// resolves and downloads the module and its requirements into the
// user's module cache, as for any Go program, and go list -deps names
// each package of the module and of its dependencies with its folder and
// its Go files for this platform. The session then serves those packages
// to yaegi as a GOPATH tree that exists only as a file system (modFS,
// given to yaegi as SourcecodeFilesystem), so nothing is copied or
// linked. A cell's import of a package of the tree is interpreted from
// the module's source; the packages that the interpreter cannot run
// (cgo, //go:embed, imports of unsafe or syscall, source that overflows
// yaegi's stack) are refused at the import with the reason, and the
// compiled tier compiles the functions that cells declare with them.
//
// Session.Modules lists what %go get added, each pinned ("path@version"
// for a module from a proxy, the folder for a local one), so that the
// frontend can restore the set on a fresh worker (package client).

// modRoot is the GOPATH that yaegi sees: a path that modFS serves and
// that exists nowhere on disk.
const modRoot = "/gnnlab-modules"

// modPkg is a package of the session's modules.
type modPkg struct {
	dir    string   // its folder in the module cache or the local module
	files  []string // its Go files for this platform (go list's GoFiles)
	module string   // "path@version", or "path => folder" for a local module
	why    string   // why a cell cannot import it; empty if it can
}

// modules is the session's set of modules.
type modules struct {
	mu    sync.Mutex
	dir   string            // the session's main module (go.mod); "" until the first %go get
	specs []string          // what %go get added, pinned, in order
	paths []string          // the module path of each spec
	pkgs  map[string]modPkg // by import path
}

// Modules returns what %go get added to the session, in order, each
// pinned: "path@version" for a module from the module proxy, the
// absolute folder of a local one. %go get with these arguments on a
// fresh session restores the same packages.
func (s *Session) Modules() []string {
	s.mods.mu.Lock()
	defer s.mods.mu.Unlock()
	return slices.Clone(s.mods.specs)
}

// Close removes the session's module folder (the downloaded modules stay
// in the module cache). The session must not be used after it.
func (s *Session) Close() error {
	s.closeCompiled() // compiled.go
	s.mods.mu.Lock()
	defer s.mods.mu.Unlock()
	if s.mods.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.mods.dir)
	s.mods.dir = ""
	return err
}

// importsModules reports whether the session imported a package of its
// modules.
func (s *Session) importsModules() bool {
	for _, imp := range s.imports {
		if _, ok := s.modPackage(imp.path); ok {
			return true
		}
	}
	return false
}

// modPackage returns the package of the session's modules at path.
func (s *Session) modPackage(path string) (modPkg, bool) {
	s.mods.mu.Lock()
	defer s.mods.mu.Unlock()
	p, ok := s.mods.pkgs[path]
	return p, ok
}

// goMagic runs %go ARGS: "get SPEC..." or "list".
func (s *Session) goMagic(ctx context.Context, args string) error {
	sub, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	switch sub {
	case "get":
		specs := strings.Fields(rest)
		if len(specs) == 0 {
			return magicError("%%go get needs a module: %%go get MODULE[@VERSION], or the folder of a local module")
		}
		return s.goGet(ctx, specs)
	case "list", "":
		s.listModules()
		return nil
	}
	return magicError("%%go %s: unknown command; the %%go magic has %%go get MODULE[@VERSION] and %%go list", sub)
}

// listModules prints the session's modules and their packages.
func (s *Session) listModules() {
	s.mods.mu.Lock()
	defer s.mods.mu.Unlock()
	if len(s.mods.specs) == 0 {
		io.WriteString(s.stdout, "No modules: %go get MODULE[@VERSION] adds one.\n")
		return
	}
	for k, spec := range s.mods.specs {
		fmt.Fprintf(s.stdout, "%s: %s\n", spec, strings.Join(s.mods.packagesOf(s.mods.paths[k]), " "))
	}
}

// packagesOf lists the importable packages of the module at modPath
// (not those of its dependencies), sorted.
func (m *modules) packagesOf(modPath string) []string {
	var ps []string
	for p, mp := range m.pkgs {
		if (p == modPath || strings.HasPrefix(p, modPath+"/")) && mp.why == "" {
			ps = append(ps, p)
		}
	}
	sort.Strings(ps)
	return ps
}

// goGet adds the modules of specs to the session: "path", "path@version"
// or a folder holding a go.mod (absolute, or starting with ./ or ../).
func (s *Session) goGet(ctx context.Context, specs []string) error {
	s.mods.mu.Lock()
	defer s.mods.mu.Unlock()
	m := &s.mods
	if _, err := exec.LookPath("go"); err != nil {
		return magicError("%%go get needs the go command, which is not on PATH: install Go (https://go.dev/dl) to use modules in cells")
	}
	if m.dir == "" {
		dir, err := os.MkdirTemp("", "gnnlab-modules-")
		if err != nil {
			return magicError("%%go get: %v", err)
		}
		if _, err := m.run(ctx, dir, "mod", "init", "gnnlab.session"); err != nil {
			os.RemoveAll(dir)
			return magicError("%%go get: go mod init: %v", err)
		}
		m.dir = dir
	}
	before := maps(m.pkgs)
	type added struct{ spec, path string }
	var adds []added
	for _, spec := range specs {
		spec, modPath, err := m.add(ctx, spec)
		if err != nil {
			return err
		}
		adds = append(adds, added{spec, modPath})
	}
	paths := slices.Clone(m.paths)
	for _, a := range adds {
		if !slices.Contains(paths, a.path) {
			paths = append(paths, a.path)
		}
	}
	pkgs, versions, err := m.list(ctx, paths)
	if err != nil {
		return err
	}
	for _, a := range adds {
		spec := a.spec
		if !strings.HasPrefix(spec, "/") {
			spec = a.path + "@" + versions[a.path]
		}
		if k := slices.Index(m.paths, a.path); k >= 0 {
			m.specs[k] = spec
		} else {
			m.specs, m.paths = append(m.specs, spec), append(m.paths, a.path)
		}
	}
	m.pkgs = pkgs
	for _, a := range adds {
		ps := m.packagesOf(a.path)
		if len(ps) == 0 {
			ps = []string{"none that the interpreter can run"}
		}
		fmt.Fprintf(s.stdout, "%%go get: %s: packages %s\n", m.specs[slices.Index(m.paths, a.path)], strings.Join(ps, ", "))
	}
	// yaegi keeps a package it has interpreted: a new version of one that
	// a cell imported takes a fresh session.
	var stale []string
	for _, imp := range s.imports {
		if old, ok := before[imp.path]; ok && pkgs[imp.path].module != old.module {
			stale = append(stale, imp.path)
		}
	}
	if len(stale) > 0 {
		fmt.Fprintf(s.errw, "%%go get: %s changed version; cells keep the one they imported until %%restart\n", strings.Join(stale, ", "))
	}
	return nil
}

// modErrors writes the positions in module sources that yaegi reports,
// modRoot/src/IMPORTPATH/FILE:LINE:COL, as IMPORTPATH/FILE:LINE:COL.
func modErrors(e *Error) {
	const prefix = modRoot + "/src/"
	if !strings.Contains(e.Value, prefix) && !slices.ContainsFunc(e.Traceback, func(l string) bool { return strings.Contains(l, prefix) }) {
		return
	}
	e.Value = strings.ReplaceAll(e.Value, prefix, "")
	for k, l := range e.Traceback {
		e.Traceback[k] = strings.ReplaceAll(l, prefix, "")
	}
}

func maps(m map[string]modPkg) map[string]modPkg {
	c := make(map[string]modPkg, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// add adds one spec to the session's go.mod and returns it (a local
// folder made absolute) with its module path.
func (m *modules) add(ctx context.Context, spec string) (string, string, error) {
	if isLocalModule(spec) {
		dir, err := filepath.Abs(spec)
		if err != nil {
			return "", "", magicError("%%go get %s: %v", spec, err)
		}
		out, err := m.run(ctx, m.dir, "mod", "edit", "-json", filepath.Join(dir, "go.mod"))
		if err != nil {
			return "", "", magicError("%%go get %s: not a module folder (a folder with a go.mod): %v", spec, err)
		}
		var gm struct{ Module struct{ Path string } }
		if err := json.Unmarshal(out, &gm); err != nil || gm.Module.Path == "" {
			return "", "", magicError("%%go get %s: %s/go.mod names no module", spec, dir)
		}
		mp := gm.Module.Path
		if _, err := m.run(ctx, m.dir, "mod", "edit", "-replace", mp+"="+dir, "-require", mp+"@v0.0.0-00010101000000-000000000000"); err != nil {
			return "", "", magicError("%%go get %s: %v", spec, err)
		}
		return dir, mp, nil
	}
	p, _, _ := strings.Cut(spec, "@")
	if _, err := m.run(ctx, m.dir, "get", spec); err != nil {
		return "", "", magicError("%%go get %s: %v%s", spec, err, goHint(err))
	}
	// p may name a package inside its module: find the module.
	out, err := m.run(ctx, m.dir, "list", "-m", "-f", "{{.Path}}", "all")
	if err != nil {
		return "", "", magicError("%%go get %s: %v", spec, err)
	}
	best := ""
	for _, mp := range strings.Fields(string(out)) {
		if (p == mp || strings.HasPrefix(p, mp+"/")) && len(mp) > len(best) {
			best = mp
		}
	}
	if best == "" {
		return "", "", magicError("%%go get %s: go get found no module for %s", spec, p)
	}
	return spec, best, nil
}

// isLocalModule reports whether a %go get argument is a folder.
func isLocalModule(spec string) bool {
	return filepath.IsAbs(spec) || spec == "." || spec == ".." ||
		strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../")
}

// listed is the part of go list -json that the session reads.
type listed struct {
	ImportPath    string
	Dir           string
	Standard      bool
	GoFiles       []string
	CgoFiles      []string
	EmbedPatterns []string
	Imports       []string
	Module        *struct {
		Path    string
		Version string
		Replace *struct{ Path, Version string }
	}
	Error *struct{ Err string }
}

// list runs go list -deps over the packages of the modules at paths and
// returns the packages a cell may import (with, for each that it cannot,
// the reason) and the version of each module.
func (m *modules) list(ctx context.Context, paths []string) (map[string]modPkg, map[string]string, error) {
	args := []string{"list", "-e", "-deps", "-json=ImportPath,Dir,Standard,GoFiles,CgoFiles,EmbedPatterns,Imports,Module,Error"}
	for _, p := range paths {
		args = append(args, p+"/...")
	}
	out, err := m.run(ctx, m.dir, args...)
	if err != nil {
		return nil, nil, magicError("%%go get: go list: %v", err)
	}
	pkgs := map[string]modPkg{}
	versions := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var l listed
		if err := dec.Decode(&l); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, magicError("%%go get: reading go list's output: %v", err)
		}
		if l.Standard || l.Module == nil {
			continue
		}
		if _, ok := inspect.Packages().ByPath[l.ImportPath]; ok {
			continue // preloaded: cells get the compiled package
		}
		mod := l.Module.Path + "@" + l.Module.Version
		if r := l.Module.Replace; r != nil && r.Version == "" {
			mod = l.Module.Path + " => " + r.Path
		}
		versions[l.Module.Path] = l.Module.Version
		pkgs[l.ImportPath] = modPkg{dir: l.Dir, files: l.GoFiles, module: mod, why: whyNot(l, pkgs)}
	}
	return pkgs, versions, nil
}

// overflows are packages whose source makes the interpreter overflow its
// stack, which ends the process (a Go stack overflow cannot be
// recovered): the session refuses them, and the packages that import
// them, before yaegi reads them.
var overflows = map[string]string{
	// yaegi v0.16.1 recurses without end building the package's types
	// (reflect.addTypeBits): measured with x/text v0.22.0, which
	// github.com/samber/lo v1.53.0 imports through golang.org/x/text/cases.
	"golang.org/x/text/unicode/norm": "the interpreter overflows its stack on this package's types",
}

// whyNot says why the interpreter cannot run package l, or "". go list
// -deps lists dependencies first, so pkgs holds those of l.
func whyNot(l listed, pkgs map[string]modPkg) string {
	if why, ok := overflows[l.ImportPath]; ok {
		return why
	}
	switch {
	case l.Error != nil:
		return strings.TrimSpace(l.Error.Err)
	case len(l.CgoFiles) > 0:
		return "it uses cgo (import \"C\"), which the interpreter cannot run"
	case len(l.EmbedPatterns) > 0:
		return "it embeds files with //go:embed, which the interpreter cannot do"
	case len(l.GoFiles) == 0:
		return "it has no Go files for " + runtime.GOOS + "/" + runtime.GOARCH
	}
	for _, imp := range l.Imports {
		if imp == "C" {
			continue
		}
		if dep, ok := pkgs[imp]; ok {
			if dep.why != "" {
				return fmt.Sprintf("it imports %s, which the interpreter cannot run: %s", imp, dep.why)
			}
			continue
		}
		if _, ok := inspect.Packages().ByPath[imp]; !ok && isStdKey(imp) {
			return fmt.Sprintf("it imports %q, which cells do not have", imp)
		}
	}
	return ""
}

// goEnv is the environment of the go commands that %go get runs: the
// session's module is its own, whatever go.work or GOFLAGS say.
func goEnv() []string {
	env := os.Environ()
	flags := os.Getenv("GOFLAGS")
	if !strings.Contains(flags, "-mod=") {
		flags = strings.TrimSpace(flags + " -mod=mod")
	}
	return append(env, "GOFLAGS="+flags, "GOWORK=off", "GO111MODULE=on")
}

// run runs the go command in dir and returns its standard output; the
// error holds the last lines of its standard error.
func (m *modules) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = goEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		if ctx.Err() != nil {
			msg = "interrupted: " + msg
		}
		return nil, errors.New(msg)
	}
	return out, nil
}

// goHint adds a hint to a failure of go get that looks like one of the
// common ones.
func goHint(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "dial tcp") || strings.Contains(msg, "no such host") ||
		strings.Contains(msg, "connection refused") || strings.Contains(msg, "network is unreachable"):
		return "\n(no network? the go command could not reach the module proxy or the checksum database; offline, GOPROXY=off GOSUMDB=off use only the module cache)"
	case strings.Contains(msg, "404 Not Found") || strings.Contains(msg, "410 Gone") ||
		strings.Contains(msg, "no matching versions") || strings.Contains(msg, "unrecognized import path") ||
		strings.Contains(msg, "cannot find module"):
		return "\n(is the module path right? %go get takes a module or package path, as go get does)"
	}
	return ""
}

// modFS is the GOPATH tree of the session's modules, under modRoot, as
// yaegi reads it (yaegi's SourcecodeFilesystem); other paths are the
// real file system. A package folder modRoot/src/IMPORTPATH lists only
// the package's Go files for this platform.
type modFS struct{ s *Session }

var (
	_ fs.StatFS     = modFS{}
	_ fs.ReadDirFS  = modFS{}
	_ fs.ReadFileFS = modFS{}
)

// resolve maps a path of the tree to the file or folder it stands for.
// inTree is false for a path outside modRoot.
func (f modFS) resolve(name string) (real string, pkg modPkg, isDir, inTree bool, err error) {
	rel, ok := strings.CutPrefix(name, modRoot+"/src/")
	if !ok {
		if name == modRoot || name == modRoot+"/src" {
			return "", modPkg{}, false, true, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		return name, modPkg{}, false, false, nil
	}
	if p, ok := f.s.modPackage(rel); ok {
		return p.dir, p, true, true, nil
	}
	dir, file := path.Split(rel)
	if p, ok := f.s.modPackage(strings.TrimSuffix(dir, "/")); ok && slices.Contains(p.files, file) {
		return filepath.Join(p.dir, file), p, false, true, nil
	}
	return "", modPkg{}, false, true, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Open implements fs.FS.
func (f modFS) Open(name string) (fs.File, error) {
	real, _, isDir, inTree, err := f.resolve(name)
	if err != nil {
		return nil, err
	}
	if inTree && isDir {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("a package folder of the module tree is read with ReadDir")}
	}
	return os.Open(real)
}

// Stat implements fs.StatFS.
func (f modFS) Stat(name string) (fs.FileInfo, error) {
	real, _, _, _, err := f.resolve(name)
	if err != nil {
		return nil, err
	}
	return os.Stat(real)
}

// ReadDir implements fs.ReadDirFS: a package folder holds its Go files.
func (f modFS) ReadDir(name string) ([]fs.DirEntry, error) {
	real, pkg, isDir, inTree, err := f.resolve(name)
	if err != nil {
		return nil, err
	}
	if !inTree {
		return os.ReadDir(real)
	}
	if !isDir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a folder")}
	}
	var es []fs.DirEntry
	for _, file := range pkg.files {
		fi, err := os.Stat(filepath.Join(pkg.dir, file))
		if err != nil {
			return nil, err
		}
		es = append(es, fs.FileInfoToDirEntry(fi))
	}
	return es, nil
}

// ReadFile implements fs.ReadFileFS.
func (f modFS) ReadFile(name string) ([]byte, error) {
	real, _, isDir, _, err := f.resolve(name)
	if err != nil {
		return nil, err
	}
	if isDir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a folder")}
	}
	return os.ReadFile(real)
}

// checkGenericUse returns a compile error for the first use in the
// interpreter's text of pc of a generic function or type of a package
// that the interpreter has compiled (a package plugin: compiled.go's
// bindModulePackages), or nil: a plugin hands the interpreter values,
// and a generic function has none until it is instantiated, which only
// the compiler does.
func (s *Session) checkGenericUse(pc *parsedCell) *Error {
	if len(s.compiled.pkgs) == 0 {
		return nil
	}
	names := s.importPaths(pc)
	var bad *ast.SelectorExpr
	var pp *compiled.PackagePlugin
	find := func(n ast.Node) bool {
		if bad != nil {
			return false
		}
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || id.Obj != nil {
			return true
		}
		if p := s.compiled.pkgs[names[id.Name]]; p != nil && slices.Contains(p.Generic, sel.Sel.Name) {
			bad, pp = sel, p
		}
		return bad == nil
	}
	for _, d := range pc.decls.Decls {
		ast.Inspect(d, find)
	}
	if pc.body != nil {
		ast.Inspect(pc.body, find)
	}
	if bad == nil {
		return nil
	}
	x := bad.X.(*ast.Ident).Name + "." + bad.Sel.Name
	msg := fmt.Sprintf("%s is generic, and package %s runs compiled (the interpreter cannot run its source): a cell's statements call it with type arguments that a compiled instantiation can name (types of the standard library, gnnlab and modules, and types made of them), not with a type that a cell declares, nor where the type arguments cannot be inferred. Call it from a function that a cell declares, which compiles (func f(xs []T) []T { return %s(...) }), or from a program with func main", x, pp.Path, x)
	return compileErrorAt(s.fset, bad.Pos(), msg)
}

// importPaths maps the import names a cell can use (the session's and
// the cell's own imports) to their paths; importNames is its inverse.
func (s *Session) importPaths(pc *parsedCell) map[string]string {
	names := map[string]string{}
	for _, im := range s.imports {
		names[im.name] = im.path
	}
	for _, is := range pc.decls.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		names[declname.Import(is)] = p
	}
	return names
}
