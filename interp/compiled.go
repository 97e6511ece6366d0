package interp

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gnnlab/gnnlab/interp/cellrt"
	"github.com/gnnlab/gnnlab/interp/internal/compiled"
	"github.com/gnnlab/gnnlab/interp/internal/symtypes"
	"github.com/gnnlab/gnnlab/interp/internal/typecheck"
	yaegi "github.com/traefik/yaegi/interp"
)

// The compiled tier (interp/internal/compiled): a cell's declarations
// are built into a Go plugin and the interpreter calls them. This file
// is the session's side of it: the hook in Eval, the plugins' symbols in
// every interpreter the session makes, the notices, the interrupt flag
// and, where the session does not print to the process's stdout, the
// capture of what compiled code prints.

// compiledState is the session's compiled tier.
type compiledState struct {
	tier  *compiled.Tier
	init  bool // the first cell has decided off
	force bool // on even under CompiledOff (tests)
	// noChecks builds cells without interrupt checks (the benchmark
	// measures their cost).
	noChecks bool
	// goCommand builds cells with the go command, not the compiler and
	// linker directly (the benchmark measures the difference).
	goCommand bool
	// noCap lifts maxPlugins (the benchmark of many redefinitions).
	noCap bool
	// keepPages leaves the plugins' file pages resident (the benchmark's
	// baseline).
	keepPages bool
	// pkgs are the packages of %go get's modules that the interpreter
	// refuses, built for it as package plugins (bindModulePackages), by
	// import path; pkgFailed those that did not build.
	pkgs      map[string]*compiled.PackagePlugin
	pkgFailed map[string]bool
	insts     []*compiled.PackagePlugin // instantiations (instantiateGenerics)
	// modInterpreted says that a cell imported a package of a module
	// interpreted from source (checkImports).
	modInterpreted bool
	instOf         map[string]string // "path.F[args]" -> its symbol, "alias.Ik"
	instPath       map[string]string // alias -> import path of an instantiations plugin
	off            bool              // %compiled off
	broken         string            // why the tier cannot work in this process ("" if it can)
	said           map[string]bool
	plugins        []*compiled.Plugin
	last           time.Duration // build and load of the last compiled cell
	out            *stdoutCapture
	// frames are the cell lines of the compiled functions a panic went
	// through, innermost first ("cell[N]:L: in f").
	frames []string
}

// CompiledOff turns the compiled tier off for sessions that start after
// it is set (tests of the interpreter alone; GNNLAB_COMPILED=off does
// the same in a worker).
var CompiledOff = os.Getenv("GNNLAB_COMPILED") == "off"

// compiledCell is the hook of Eval: it compiles what it can of cell n
// and returns the cell for the interpreter. done ends the cell's
// interrupt watch.
func (s *Session) compiledCell(ctx context.Context, n int, cell string) (string, func(*error), error) {
	cs := &s.compiled
	if !cs.init {
		cs.init = true
		cs.off = CompiledOff && !cs.force
	}
	if cs.off {
		return cell, func(*error) {}, nil
	}
	cellrt.Interrupt(false)
	stop := context.AfterFunc(ctx, func() { cellrt.Interrupt(true) })
	cs.frames = nil
	lines := strings.Count(cell, "\n") + 1
	done := func(err *error) {
		stop()
		s.compiledFrames(*err, n, lines)
	}
	if cs.broken != "" {
		return cell, done, nil
	}
	if s.dbg.debug.Load() != nil && (strings.Contains(cell, "func") || strings.Contains(cell, "type") || strings.Contains(cell, "var")) {
		// Breakpoints and steps need the interpreter (breakpoint.go).
		s.compiledNotice("debug", "the debugger is on: declarations run interpreted while it is, so that breakpoints and steps reach them (functions compiled before stay compiled)")
		return cell, done, nil
	}
	if len(cs.plugins) >= maxPlugins && !cs.noCap {
		mib := len(cs.plugins) / 2 // Linux drops the files' pages
		if runtime.GOOS != "linux" {
			mib = len(cs.plugins) * 2
		}
		cs.broken = fmt.Sprintf("the session has loaded %d compiled cells (about %d MiB resident, which plugins keep: they cannot be unloaded); %%restart, then %%replay, frees them", len(cs.plugins), mib)
		s.compiledNotice("memory", cs.broken)
		return cell, done, nil
	}
	if cs.tier == nil {
		env, err := compiled.Detect()
		if err == nil {
			var b *compiled.Builder
			if b, err = compiled.NewBuilder(env); err == nil {
				cs.tier = compiled.New(b)
			}
		}
		if err != nil {
			cs.broken = err.Error()
			s.compiledNotice("env", cs.broken)
			return cell, done, nil
		}
		cs.tier.NoChecks = cs.noChecks
		if cs.goCommand {
			cs.tier.UseGoCommand()
		}
		if cs.keepPages {
			cs.tier.KeepPages()
		}
		cellrt.ExitHook = s.compiledExit
		cellrt.Stdin = s.stdin
		if !processStdout(s.stdout) {
			out := &stdoutCapture{w: s.stdout}
			cs.out = out
			cs.tier.Around(func(load func()) {
				out.begin()
				defer out.end()
				load()
			})
		}
	}
	if err := s.bindModulePackages(ctx, n, cell); err != nil {
		return cell, done, err
	}
	cell, err := s.instantiateGenerics(ctx, n, cell)
	if err != nil {
		return cell, done, err
	}
	if !strings.Contains(cell, "func") && !strings.Contains(cell, "type") && !strings.Contains(cell, "var") && len(cs.plugins) == 0 {
		return cell, done, nil // statements only: nothing to compile or qualify
	}
	pc, err := parseCell(token.NewFileSet(), n, cell)
	if err != nil {
		return cell, done, nil // the session reports it
	}
	var imps []compiled.Import
	for _, im := range s.imports {
		imps = append(imps, compiled.Import{Name: im.name, Path: im.path})
	}
	var globals map[string]reflect.Value
	c := compiled.Cell{
		N: n, Text: cell,
		DeclSrc: pc.declSrc, DeclBase: pc.declBase,
		StmtSrc: pc.stmtSrc, StmtBase: pc.stmtBase,
		HasStmts: pc.hasStmts,
		Imports:  imps,
		Module: func(path string) bool {
			_, ok := s.modPackage(path)
			return ok
		},
		ModuleDir: s.moduleDir(),
		CompiledOnly: func(path string) bool {
			mp, ok := s.modPackage(path)
			return ok && (mp.why != "" || cs.pkgs[path] != nil)
		},
		Bound: func(path string) bool { return cs.pkgs[path] != nil },
		Interpreted: func(name string) bool {
			if s.knows(name) {
				return true
			}
			if globals == nil {
				globals = globalsOf(s.i)
			}
			_, ok := globals[name]
			return ok
		},
	}
	res, err := cs.tier.Compile(ctx, c)
	if err != nil {
		return cell, done, err
	}
	if res.Notice != "" {
		s.compiledNotice(res.Kind, res.Notice)
		if res.Kind == "load" {
			// Every later plugin would fail alike (the binary does not
			// match the checkout): stop building them.
			cs.broken = res.Notice
		}
	}
	if res.Plugin != nil {
		cs.plugins = append(cs.plugins, res.Plugin)
		cs.last = res.Plugin.Build + res.Plugin.Load
		if err := s.i.Use(s.pluginExports(res.Plugin)); err != nil {
			return cell, done, fmt.Errorf("interp: loading a compiled cell: %w", err)
		}
		registerPlugin(res.Plugin)
		// The pages the interpreter read taking the symbols, and those
		// the cell before ran, need not stay resident: what runs again
		// faults back in from the plugin's file. Not every plugin's:
		// loading one reads the type links of all those loaded before,
		// which would come back from the disk at every load (dropping
		// them all, TestRedefinitionMemory measured 419 MiB resident at
		// 1,000 redefinitions instead of 505, but a median load of 94 ms
		// instead of 31 ms at 600, when each plugin linked reflect).
		if !cs.keepPages {
			compiled.DropPages(cs.plugins[max(len(cs.plugins)-2, 0):])
		}
	}
	if os.Getenv("GNNLAB_COMPILED_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "--- compiled tier, cell %d:\n%s\n---\n", n, res.Text)
	}
	return res.Text, done, nil
}

// maxPlugins bounds the plugins of a session: they cannot be unloaded,
// and each keeps about 0.4 MiB resident on Linux once the kernel has
// dropped the pages of its file (TestRedefinitionMemory over 1,000
// redefinitions of a function that links no reflect: +437 MiB resident,
// +318 MiB private), about 2 MiB where it does not, so past this many
// later cells run interpreted.
const maxPlugins = 160

// compiledNotice says once per kind why declarations run interpreted.
func (s *Session) compiledNotice(kind, why string) {
	cs := &s.compiled
	if cs.said == nil {
		cs.said = map[string]bool{}
	}
	if cs.said[kind] {
		return
	}
	cs.said[kind] = true
	fmt.Fprintf(s.errw, "gnnlab: running interpreted (not compiled): %s\n", why)
}

// useCompiled gives a fresh interpreter of the session (a rebuild) the
// plugins loaded so far, and package cellrt's flag functions.
func (s *Session) useCompiled(i *yaegi.Interpreter) error {
	cellrt.ExitHook = s.compiledExit
	if err := i.Use(flagExports); err != nil {
		return err
	}
	for _, p := range s.compiled.plugins {
		if err := i.Use(s.pluginExports(p)); err != nil {
			return err
		}
	}
	for _, pp := range s.compiled.pkgs {
		if err := i.Use(s.packageExports(pp)); err != nil {
			return err
		}
	}
	for _, pp := range s.compiled.insts {
		if err := i.Use(s.packageExports(pp)); err != nil {
			return err
		}
	}
	return nil
}

// instantiateGenerics compiles the calls that the cell's statements make
// of generic functions of package plugins (bindModulePackages): the
// session's type checker infers their type arguments (it sees the
// functions' signatures: symtypes.RegisterGeneric), a plugin holds each
// instantiation (lo.Map[int, string]), and the cell calls that instead.
// A type argument that a plugin cannot name (a type that a cell
// declares) leaves the call to checkGenericUse, which refuses it.
func (s *Session) instantiateGenerics(ctx context.Context, n int, cell string) (string, error) {
	cs := &s.compiled
	if len(cs.pkgs) == 0 {
		return cell, nil
	}
	fset := token.NewFileSet()
	pc, err := parseCell(fset, n, cell)
	if err != nil || pc.body == nil {
		return cell, nil
	}
	names := s.importPaths(pc)
	var sels []*ast.SelectorExpr
	explicit := map[*ast.SelectorExpr]ast.Expr{} // lo.Map[int, string]: the index expression
	ast.Inspect(pc.body, func(nd ast.Node) bool {
		switch ix := nd.(type) {
		case *ast.IndexExpr:
			if sel, ok := ix.X.(*ast.SelectorExpr); ok {
				explicit[sel] = ix
			}
		case *ast.IndexListExpr:
			if sel, ok := ix.X.(*ast.SelectorExpr); ok {
				explicit[sel] = ix
			}
		}
		if sel, ok := nd.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil {
				if pp := cs.pkgs[names[id.Name]]; pp != nil && slices.Contains(pp.Generic, sel.Sel.Name) {
					sels = append(sels, sel)
				}
			}
		}
		return true
	})
	if len(sels) == 0 {
		return cell, nil
	}
	info, _ := typecheck.Cell(fset, pc.decls, pc.body, s.checkEnv(globalsOf(s.i)))
	imports := map[string]string{} // path -> name in the plugin
	keys := map[string]string{}    // expression -> its key in cs.instOf
	qual := func(p *types.Package) string {
		if _, ok := imports[p.Path()]; !ok {
			imports[p.Path()] = fmt.Sprintf("gnnlabt%d", len(imports))
		}
		return imports[p.Path()]
	}
	var exprs []string
	at := map[*ast.SelectorExpr]int{}
	bound := map[*ast.SelectorExpr]string{} // instantiated by an earlier cell
	for _, sel := range sels {
		inst, ok := info.Instances[sel.Sel]
		if !ok || !nameable(inst.TypeArgs) {
			continue
		}
		var args []string
		for i := range inst.TypeArgs.Len() {
			args = append(args, types.TypeString(inst.TypeArgs.At(i), qual))
		}
		path := names[sel.X.(*ast.Ident).Name]
		key := fmt.Sprintf("%s.%s[%s]", path, sel.Sel.Name, strings.Join(args, ", "))
		if sym, ok := cs.instOf[key]; ok {
			bound[sel] = sym
			continue
		}
		e := fmt.Sprintf("%s.%s[%s]", qual(types.NewPackage(path, "")), sel.Sel.Name, strings.Join(args, ", "))
		keys[e] = key
		k := slices.Index(exprs, e)
		if k < 0 {
			k = len(exprs)
			exprs = append(exprs, e)
		}
		at[sel] = k
	}
	if len(exprs) == 0 && len(bound) == 0 {
		return cell, nil
	}
	if cs.instOf == nil {
		cs.instOf = map[string]string{}
	}
	var uses []string // imports of the plugins the cell now calls
	for _, sym := range bound {
		if u := "import " + sym[:strings.IndexByte(sym, '.')] + " " + strconv.Quote(cs.instPath[sym[:strings.IndexByte(sym, '.')]]); !slices.Contains(uses, u) {
			uses = append(uses, u)
		}
	}
	if len(exprs) > 0 {
		pp, err := cs.tier.Instances(ctx, imports, exprs)
		if err != nil {
			if ctx.Err() != nil {
				return cell, ctx.Err()
			}
			s.compiledNotice("instances", "generic calls of compiled packages could not be compiled: "+err.Error())
			return cell, nil
		}
		if err := s.i.Use(s.packageExports(pp)); err != nil {
			return cell, fmt.Errorf("interp: loading compiled instantiations: %w", err)
		}
		symtypes.RegisterPlugin(pp.Path, pp.Name, pp.Symbols)
		cs.insts = append(cs.insts, pp)
		alias := "gnnlab" + pp.Name
		if cs.instPath == nil {
			cs.instPath = map[string]string{}
		}
		cs.instPath[alias] = pp.Path
		for k, e := range exprs {
			cs.instOf[keys[e]] = fmt.Sprintf("%s.I%d", alias, k)
		}
		for sel, k := range at {
			bound[sel] = fmt.Sprintf("%s.I%d", alias, k)
		}
		uses = append(uses, fmt.Sprintf("import %s %q", alias, pp.Path))
	}
	sf := fset.File(pc.body.Pos())
	type edit struct {
		from, to int
		text     string
	}
	var edits []edit
	for sel, sym := range bound {
		from := sf.Offset(sel.Pos()) - pc.stmtBase
		to := sf.Offset(sel.End()) - pc.stmtBase
		if ix, ok := explicit[sel]; ok {
			to = sf.Offset(ix.End()) - pc.stmtBase // its type arguments are the instantiation's
		}
		if from < 0 || to > len(cell) {
			continue
		}
		edits = append(edits, edit{from, to, sym})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	for _, e := range edits {
		cell = cell[:e.from] + e.text + cell[e.to:]
	}
	sort.Strings(uses)
	return cell + "\n" + strings.Join(uses, "\n"), nil
}

// nameable reports whether a plugin can name each type of ts: none is
// declared by a cell (package main, or a compiled cell's plugin) or
// unexported.
func nameable(ts *types.TypeList) bool {
	ok := true
	for i := range ts.Len() {
		var walk func(t types.Type, depth int)
		walk = func(t types.Type, depth int) {
			if depth > 16 || !ok {
				return
			}
			switch t := t.(type) {
			case *types.Named:
				o := t.Obj()
				if o.Pkg() == nil {
					return // error
				}
				if o.Pkg().Path() == "main" || strings.HasPrefix(o.Pkg().Path(), compiled.ModPath+"/") || !o.Exported() {
					ok = false
					return
				}
				if args := t.TypeArgs(); args != nil {
					for j := range args.Len() {
						walk(args.At(j), depth+1)
					}
				}
			case *types.Pointer:
				walk(t.Elem(), depth+1)
			case *types.Slice:
				walk(t.Elem(), depth+1)
			case *types.Array:
				walk(t.Elem(), depth+1)
			case *types.Chan:
				walk(t.Elem(), depth+1)
			case *types.Map:
				walk(t.Key(), depth+1)
				walk(t.Elem(), depth+1)
			case *types.Signature:
				for j := range t.Params().Len() {
					walk(t.Params().At(j).Type(), depth+1)
				}
				for j := range t.Results().Len() {
					walk(t.Results().At(j).Type(), depth+1)
				}
			case *types.Struct:
				for j := range t.NumFields() {
					walk(t.Field(j).Type(), depth+1)
				}
			case *types.Interface:
				if t.NumMethods() > 0 {
					ok = false // yaegi's interfaces are its own
				}
			case *types.TypeParam:
				ok = false
			}
		}
		walk(ts.At(i), 0)
	}
	return ok
}

// bindModulePackages builds each package that the cell imports of a
// module that %go get added into a package plugin (compiled.Tier.Package)
// that the interpreter then has as a compiled package: its functions,
// types, variables and constants (instantiateGenerics adds the
// instantiations of its generic functions that cells call). A package
// that does not build runs interpreted from source as before, or stays
// refused where the interpreter cannot run it, with a notice saying why.
func (s *Session) bindModulePackages(ctx context.Context, n int, cell string) error {
	cs := &s.compiled
	dir := s.moduleDir()
	if dir == "" || !strings.Contains(cell, "import") {
		return nil
	}
	pc, err := parseCell(token.NewFileSet(), n, cell)
	if err != nil {
		return nil // the session reports it
	}
	for _, is := range pc.decls.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil || cs.pkgs[p] != nil || cs.pkgFailed[p] {
			continue
		}
		// A package the interpreter can run is compiled too, unless a
		// module's package already runs interpreted: it may have read
		// this one from source as its dependency, and a compiled copy
		// would be another package.
		if mp, ok := s.modPackage(p); !ok || mp.why == "" && cs.modInterpreted {
			continue
		}
		pp, err := cs.tier.Package(ctx, p, dir)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if cs.pkgFailed == nil {
				cs.pkgFailed = map[string]bool{}
			}
			cs.pkgFailed[p] = true
			s.compiledNotice("package "+p, fmt.Sprintf("package %s could not be compiled for the interpreter: %v", p, err))
			continue
		}
		if err := s.i.Use(s.packageExports(pp)); err != nil {
			return fmt.Errorf("interp: loading the compiled package %s: %w", p, err)
		}
		symtypes.RegisterGeneric(p, pp.GenericFuncs)
		symtypes.RegisterPlugin(p, pp.Name, pp.Symbols)
		if cs.pkgs == nil {
			cs.pkgs = map[string]*compiled.PackagePlugin{}
		}
		cs.pkgs[p] = pp
	}
	return nil
}

// packageExports is a package plugin's table for yaegi, its functions
// wrapped as those of compiled cells are (wrapCompiled).
func (s *Session) packageExports(pp *compiled.PackagePlugin) yaegi.Exports {
	syms := map[string]reflect.Value{}
	for k, v := range pp.Symbols {
		if v.Kind() == reflect.Func && !v.CanSet() && !v.IsNil() { // not a variable
			v = s.wrapCompiled(v)
		}
		syms[k] = v
	}
	return yaegi.Exports{pp.Path + "/" + pp.Name: syms}
}

// pluginExports are a plugin's symbols for yaegi; where the session's
// stdout is not the process's, each function is wrapped so that what
// compiled code prints reaches it.
func (s *Session) pluginExports(p *compiled.Plugin) yaegi.Exports {
	syms := map[string]reflect.Value{}
	for k, v := range p.Symbols {
		if v.Kind() == reflect.Func && strings.HasPrefix(k, "F") {
			v = s.wrapCompiled(v)
		}
		syms[k] = v
	}
	return yaegi.Exports{p.Key: syms}
}

// wrapCompiled wraps a compiled function for the interpreter: a panic
// leaves the cell lines of the compiled frames it went through (the
// error's traceback shows them), and where the session's stdout is not
// the process's, what the function prints is copied to it.
func (s *Session) wrapCompiled(fn reflect.Value) reflect.Value {
	t := fn.Type()
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		if out := s.compiled.out; out != nil {
			out.begin()
			defer out.end()
		}
		defer func() {
			if r := recover(); r != nil {
				if s.compiled.frames == nil {
					s.compiled.frames = cellFrames()
				}
				panic(r)
			}
		}()
		if t.IsVariadic() {
			return fn.CallSlice(args)
		}
		return fn.Call(args)
	})
}

// cellFrames returns the frames of compiled cell code on the stack of a
// panic being recovered, as "cell[N]:L: in name".
func cellFrames() []string {
	pc := make([]uintptr, 64)
	n := runtime.Callers(3, pc)
	frames := runtime.CallersFrames(pc[:n])
	var out []string
	for {
		f, more := frames.Next()
		if filepath.Base(f.File) == cellFile {
			name := f.Function
			if i := strings.LastIndexByte(name, '/'); i >= 0 {
				name = name[i+1:]
			}
			if _, rest, ok := strings.Cut(name, "."); ok {
				name = rest
			}
			out = append(out, cellPos(f.Line, 0)+": in "+name)
		}
		if !more {
			break
		}
	}
	return out
}

// compiledFrames puts the compiled frames of a panic into the cell's
// error, ahead of the interpreter's, less those of the wrappers the tier
// added after the cell's last line (of lines).
func (s *Session) compiledFrames(err error, n, lines int) {
	var e *Error
	if len(s.compiled.frames) == 0 || !errors.As(err, &e) || (e.Name != namePanic && e.Name != nameRuntime) || len(e.Traceback) == 0 {
		return
	}
	tb := append([]string{e.Traceback[0]}, s.compiled.frames...)
	for _, l := range e.Traceback[1:] {
		var c, line int
		if _, err := fmt.Sscanf(l, "cell[%d]:%d:", &c, &line); err == nil && c == n && line > lines {
			continue
		}
		tb = append(tb, l)
	}
	e.Traceback = tb
	s.compiled.frames = nil
}

// compiledExit is os.Exit in compiled code: as in interpreted code
// (exit.go), the cell ends and the goroutine blocks for good.
func (s *Session) compiledExit(code int) {
	if out := s.compiled.out; out != nil {
		out.flush()
	}
	select {
	case s.exit <- code:
	default:
	}
	select {}
}

// registerPlugin makes a plugin's package known to the session's type
// checker (internal/symtypes), as the preloaded packages are.
func registerPlugin(p *compiled.Plugin) {
	symtypes.RegisterPlugin(p.Path, p.Key[strings.LastIndexByte(p.Key, '/')+1:], p.Symbols)
}

// stdoutCapture sends what compiled code writes to os.Stdout to the
// session's stdout: during each outermost call of a compiled function,
// os.Stdout is a file whose contents are copied when the call returns.
type stdoutCapture struct {
	mu    sync.Mutex
	w     io.Writer
	depth int
	f     *os.File
	saved *os.File
}

func (c *stdoutCapture) begin() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.depth++
	if c.depth > 1 {
		return
	}
	if c.f == nil {
		f, err := os.CreateTemp("", "gnnlab-stdout-")
		if err != nil {
			return
		}
		os.Remove(f.Name())
		c.f = f
	}
	c.saved, os.Stdout = os.Stdout, c.f
}

func (c *stdoutCapture) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.depth--
	if c.depth > 0 || c.saved == nil {
		return
	}
	c.flushLocked()
	os.Stdout, c.saved = c.saved, nil
}

func (c *stdoutCapture) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
}

func (c *stdoutCapture) flushLocked() {
	if c.f == nil {
		return
	}
	if _, err := c.f.Seek(0, io.SeekStart); err == nil {
		_, _ = io.Copy(c.w, c.f)
	}
	_ = c.f.Truncate(0)
	_, _ = c.f.Seek(0, io.SeekStart)
}

// compiledMagic is %compiled: "on" and "off" turn the tier on and off for
// the session; with no argument it shows how each declaration runs.
func (s *Session) compiledMagic(args string) error {
	cs := &s.compiled
	cs.init = true
	switch strings.TrimSpace(args) {
	case "on":
		cs.off = false
		return nil
	case "off":
		cs.off = true
		return nil
	case "", "why":
	default:
		return magicError("%%compiled takes on, off or nothing (got %q)", args)
	}
	state := "on"
	switch {
	case cs.off:
		state = "off (%compiled on turns it on)"
	case cs.broken != "":
		state = "unavailable: " + cs.broken
	case cs.tier == nil:
		state = "on (no cell compiled yet)"
	default:
		state = fmt.Sprintf("on: %d plugins loaded, the last built and loaded in %.2f s", len(cs.plugins), cs.last.Seconds())
	}
	fmt.Fprintf(s.stdout, "compiled tier: %s\n", state)
	if len(cs.pkgs) > 0 {
		paths := make([]string, 0, len(cs.pkgs))
		for p := range cs.pkgs {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			pp := cs.pkgs[p]
			fmt.Fprintf(s.stdout, "package %s: compiled for the interpreter (built and loaded in %.2f s)\n", p, (pp.Build + pp.Load).Seconds())
		}
	}
	if len(cs.insts) > 0 {
		fmt.Fprintf(s.stdout, "instantiations of generic functions for cells' statements: %d, in %d plugins\n", len(cs.instOf), len(cs.insts))
	}
	if cs.tier == nil {
		return nil
	}
	ds := cs.tier.Decisions()
	if len(ds) == 0 {
		return nil
	}
	w := 4
	for _, d := range ds {
		w = max(w, len(d.Name))
	}
	fmt.Fprintf(s.stdout, "%-5s %-*s  %-11s  %s\n", "cell", w, "name", "runs", "why")
	for _, d := range ds {
		runs := "interpreted"
		if d.Compiled {
			runs = "compiled"
		}
		fmt.Fprintf(s.stdout, "%-5d %-*s  %-11s  %s\n", d.Cell, w, d.Name, runs, d.Why)
	}
	fmt.Fprintln(s.stdout, "(declarations not listed run interpreted: their cells had nothing to compile or ran with the tier off)")
	return nil
}

// WarmCompiled fills the go command's cache with the packages that
// compiled cells link, built in plugin mode, so that the first compiled
// cell of a session does not wait for them (gnnlab install and make lab
// run it). It returns how long it took.
func WarmCompiled(ctx context.Context) (time.Duration, error) {
	return compiled.Warm(ctx)
}

// closeCompiled removes the tier's module (the loaded plugins stay).
func (s *Session) closeCompiled() {
	if t := s.compiled.tier; t != nil {
		_ = t.Close()
		s.compiled.tier = nil
		s.compiled.broken = "the session is closed"
	}
}

// flagExports are the functions of package flag that work on
// flag.CommandLine, in interpreted cells: package cellrt's, as in
// compiled cells (compiled.FlagFuncs), on a set of flags of the
// session's own. The process's flag.CommandLine is the worker's: a cell
// run twice would define its flags again there and panic ("flag
// redefined"), and flag.Parse would read the worker's arguments.
var flagExports = yaegi.Exports{"flag/flag": {
	"Parse": reflect.ValueOf(cellrt.FlagParse), "Parsed": reflect.ValueOf(cellrt.FlagParsed),
	"Args": reflect.ValueOf(cellrt.FlagArgs), "Arg": reflect.ValueOf(cellrt.FlagArg),
	"NArg": reflect.ValueOf(cellrt.FlagNArg), "NFlag": reflect.ValueOf(cellrt.FlagNFlag),
	"Lookup": reflect.ValueOf(cellrt.FlagLookup), "Set": reflect.ValueOf(cellrt.FlagSetValue),
	"Visit": reflect.ValueOf(cellrt.FlagVisit), "VisitAll": reflect.ValueOf(cellrt.FlagVisitAll),
	"PrintDefaults": reflect.ValueOf(cellrt.FlagPrintDefaults),
	"Var":           reflect.ValueOf(cellrt.FlagVar), "Func": reflect.ValueOf(cellrt.FlagFunc),
	"BoolFunc": reflect.ValueOf(cellrt.FlagBoolFunc), "TextVar": reflect.ValueOf(cellrt.FlagTextVar),
	"Bool": reflect.ValueOf(cellrt.FlagBool), "BoolVar": reflect.ValueOf(cellrt.FlagBoolVar),
	"Int": reflect.ValueOf(cellrt.FlagInt), "IntVar": reflect.ValueOf(cellrt.FlagIntVar),
	"Int64": reflect.ValueOf(cellrt.FlagInt64), "Int64Var": reflect.ValueOf(cellrt.FlagInt64Var),
	"Uint": reflect.ValueOf(cellrt.FlagUint), "UintVar": reflect.ValueOf(cellrt.FlagUintVar),
	"Uint64": reflect.ValueOf(cellrt.FlagUint64), "Uint64Var": reflect.ValueOf(cellrt.FlagUint64Var),
	"String": reflect.ValueOf(cellrt.FlagString), "StringVar": reflect.ValueOf(cellrt.FlagStringVar),
	"Float64": reflect.ValueOf(cellrt.FlagFloat64), "Float64Var": reflect.ValueOf(cellrt.FlagFloat64Var),
	"Duration": reflect.ValueOf(cellrt.FlagDuration), "DurationVar": reflect.ValueOf(cellrt.FlagDurationVar),
}}

// moduleDir is the folder of the session's module (modules.go), "" until
// the first %go get.
func (s *Session) moduleDir() string {
	s.mods.mu.Lock()
	defer s.mods.mu.Unlock()
	return s.mods.dir
}
