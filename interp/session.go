package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/interp/internal/declname"
	"github.com/gnnlab/gnnlab/interp/internal/frame"
	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
	"github.com/gnnlab/gnnlab/interp/internal/rt"
	"github.com/gnnlab/gnnlab/interp/internal/typecheck"
	yaegi "github.com/traefik/yaegi/interp"
)

// stopWait bounds how long an interrupted Eval waits for the interpreted
// code to notice the interruption.
const stopWait = 2 * time.Second

// Session is one Go interpreter session: cells evaluated in order share
// their declarations and variables.
type Session struct {
	opts   Options
	stdin  io.Reader
	stdout io.Writer
	errw   *errWriter

	i       *yaegi.Interpreter
	fset    *token.FileSet // where cells are parsed
	count   int            // cells evaluated (the N of cell[N])
	imports []importRec    // imports of earlier cells, for replay
	records []*declRec     // declarations of earlier cells, in order
	user    map[string]*declRec
	exit    chan int        // os.Exit's status (internal/rt/exit.go)
	rt      *rt.Runtime     // what rewritten cells call (internal/rt)
	generic map[string]bool // packages whose generic helpers are loaded (internal/rewrite/genericstd.go)
	// instances are the generic instances made in a function (internal/rewrite/geninstance.go)
	instances map[string]bool
	// failedInstance says a call instantiated a generic body that used
	// a name no cell declares (pendingWords, frames.go): yaegi keeps the
	// failed instance, so the next cell that declares something rebuilds
	// the session.
	failedInstance bool
	// released counts the slots of releasedIn's global frame that
	// releaseTemps has seen (release.go); unstopped says a cell is still
	// running after an interrupt, so its slots must stay.
	released   int
	releasedIn *yaegi.Interpreter
	unstopped  bool
	mods       modules // %go get (modules.go)
	// keepSlots says that the cell imported a package of a module, whose
	// package-level variables live in the global frame (release.go).
	keepSlots bool
	defs      int      // functions made for the cells' definitions (frames.go)
	made      []string // those of the running cell, forgotten after it
	dbg       debugger // the debugger (breakpoint.go)
	// forwards are the methods that the session declared for embedded
	// interfaces ("Type.Method", internal/rewrite/rewrite_embed.go).
	forwards map[string]bool
	// calls ends the blocking calls of an interrupted cell; stuck says
	// the last interrupted cell did not stop (blocking.go).
	calls    cellStop
	stuck    bool
	compiled compiledState // the compiled tier (compiled.go)
}

type importRec struct{ name, path string }

// declRec is a top-level declaration of a successful cell.
type declRec struct {
	names  []string    // defined names; methods as "Type.Method"
	tok    token.Token // token.TYPE, VAR, CONST or FUNC
	method bool
	src    string // "//line" directive and the text, columns kept
	text   string // the declaration as written
	sig    string // for inspection: the declaration without a body
	doc    string
	sigKey string // a function's parameters and results, normalised
	cell   int
	line   int  // yaegi's (virtual) line of its first line (virtualLine)
	dead   bool // every name redefined by a later cell
	// pending are the names a method or generic function used
	// undefined, and where (frames.go).
	pending []pendingUse
}

// New starts a session with the preloaded packages.
func New(opts Options) (*Session, error) {
	s := &Session{
		opts:   opts,
		stdin:  opts.Stdin,
		stdout: orStdout(opts.Stdout),
		errw:   &errWriter{w: orStderr(opts.Stderr)},
		user:   map[string]*declRec{},
		fset:   token.NewFileSet(),
		exit:   make(chan int, 1),
	}
	s.rt = rt.New(s.stdout, s.exit)
	if s.stdin == nil {
		s.stdin = noStdin{}
	}
	i, err := s.newInterp()
	if err != nil {
		return nil, err
	}
	s.i = i
	return s, nil
}

func (s *Session) newInterp() (*yaegi.Interpreter, error) {
	quietYaegiLog() // stdio.go
	i := yaegi.New(yaegi.Options{
		Stdin:  s.stdin,
		Stdout: s.stdout,
		Stderr: s.errw,
		Env:    os.Environ(),
		// Packages of %go get's modules are interpreted from source.
		GoPath:               modRoot,
		SourcecodeFilesystem: modFS{s},
	})
	stdin, stdout, stderr := s.stdin, s.stdout, io.Writer(s.errw)
	std, gnnlab := symbolTables()                                      // stdsymbols.go
	exports := append([]yaegi.Exports{std, gnnlab}, s.rt.Exports()...) // internal/rt
	exports = append(exports, s.blockingSymbols())                     // blocking.go
	// os.Stdin/Stdout/Stderr of cells are the session's streams (as
	// io.Reader and io.Writer, not *os.File).
	exports = append(exports, yaegi.Exports{"os/os": {
		"Stdin":  reflect.ValueOf(&stdin).Elem(),
		"Stdout": reflect.ValueOf(&stdout).Elem(),
		"Stderr": reflect.ValueOf(&stderr).Elem(),
	}})
	for _, e := range exports {
		if err := i.Use(e); err != nil {
			return nil, fmt.Errorf("interp: loading symbols: %w", err)
		}
	}
	for _, e := range s.rt.LateExports(i) {
		if err := i.Use(e); err != nil {
			return nil, fmt.Errorf("interp: loading symbols: %w", err)
		}
	}
	// Before any function value exists (breakpoint.go).
	if s.opts.Debuggable {
		s.dbg.Pin(i, (*debugHost)(s), stopWait)
	}
	if err := s.useCompiled(i); err != nil { // compiled.go
		return nil, fmt.Errorf("interp: compiled cells: %w", err)
	}
	if _, err := i.Eval(rewrite.HelperSource()); err != nil {
		return nil, fmt.Errorf("interp: helpers: %w", err)
	}
	es, err := rt.ErrorSymbols(i, helperErr+"()") // internal/rt/errwrap.go
	if err == nil {
		err = i.Use(es)
	}
	if err != nil {
		return nil, fmt.Errorf("interp: error wrappers: %w", err)
	}

	return i, nil
}

// Eval runs one cell. Cancelling ctx interrupts it (an *Error named
// "interrupted"); the session keeps its state.
func (s *Session) Eval(ctx context.Context, cell string) (res Result, err error) {
	defer s.releaseTemps()                          // release.go
	if res, ok, err := s.evalMagic(ctx, cell); ok { // magic.go
		return res, err
	}
	s.count++
	n := s.count
	if e := s.refuseBeforeTier(n, cell); e != nil {
		return Result{}, e
	}
	cell, compiledDone, err := s.compiledCell(ctx, n, cell) // compiled.go
	defer compiledDone(&err)
	if err != nil {
		return Result{}, err
	}
	s.dbg.drun = s.newDebugRun(n, cell) // breakpoint.go
	defer func() { s.dbg.drun = nil }()
	// Positions of earlier cells are not needed again: a fresh set does
	// not keep every cell's line table.
	s.fset = token.NewFileSet()
	var typeErrs []types.Error // go/types' errors in the cell (typecheck.Env.Errors)
	var pc *parsedCell
	defer func() {
		if r := recover(); r != nil {
			res, err = Result{}, internalError(r)
		}
		err = goWords(err, typeErrs) // errors.go
		if pc != nil {
			err = s.pendingWords(err, pc) // frames.go
		}
		if err == error(errExitZero) {
			err = nil // os.Exit(0) ended the cell (internal/rt/exit.go)
		}
		var e *Error
		if errors.As(err, &e) {
			modErrors(e) // modules.go
		}
	}()
	pc, err = parseCell(s.fset, n, cell)
	if err != nil {
		return Result{}, parseError(s.fset, callExprPos(err, cell))
	}
	if e := s.checkImports(pc); e != nil { // imports.go
		return Result{}, e
	}
	if e := s.checkReturn(pc); e != nil { // imports.go
		return Result{}, e
	}
	recs, imps := s.collect(pc)
	globals := globalsOf(s.i)
	env := func() typecheck.Env {
		typeErrs = nil
		env := s.checkEnv(globals)
		env.Errors = func(e types.Error) { typeErrs = append(typeErrs, e) }
		return env
	}
	info, undef := typecheck.Cell(s.fset, pc.decls, pc.body, env())
	if added, err := s.autoImport(ctx, pc, undef); err != nil { // imports.go
		return Result{}, err
	} else if added {
		info, undef = typecheck.Cell(s.fset, pc.decls, pc.body, env())
	}
	if pos, msg := typecheck.UnexportedUse(info, pc.decls, pc.body); msg != "" {
		return Result{}, compileErrorAt(s.fset, pos, msg)
	}
	if pos, msg := typecheck.NonFunctionCall(info, pc.decls, pc.body); msg != "" {
		return Result{}, compileErrorAt(s.fset, pos, msg)
	}
	if pos, msg := typecheck.TooLarge(info, pc.decls, pc.body); msg != "" {
		return Result{}, compileErrorAt(s.fset, pos, msg)
	}
	exact := typecheck.GlobalsExact(s.checkEnv(globals))
	if refused := typecheck.Refused(info, typeErrs, exact, pc.decls, pc.body); len(refused) > 0 {
		// Go's compiler refuses the cell too: say so before anything runs.
		return Result{}, compileErrors(refused) // errors.go
	}
	for _, te := range typeErrs {
		// yaegi ran `_ = f()` for an f of no value before failing with
		// reflect's words, and after `_ = panic("x")` the session's next
		// panic hung (panicnovalue.cell).
		if strings.HasSuffix(te.Msg, "(no value) used as value") {
			return Result{}, compileErrorAt(te.Fset, te.Pos, te.Msg)
		}
	}
	_, hasMain := s.user["main"]
	out, err := rewrite.Apply(pc.rewriteCell(), info, rewrite.Env{Globals: globals, Undefined: undef, Names: s.importNames(pc), HasMain: hasMain, Seq: &s.defs})
	if err != nil {
		return Result{}, unsupported(s.fset, err)
	}
	rw, srw := out.Decl, out.Stmt
	declEd, stmtEd := rw.Editor(), srw.Editor()
	if err := s.loadGeneric(ctx, rw, srw); err != nil {
		return Result{}, err
	}
	markPending(pc, recs, undef) // frames.go
	if s.needsReplay(recs) || s.resolvesPending(pc) || s.failedInstance && len(recs) > 0 {
		if err := s.rebuild(ctx, recs, imps); err != nil {
			return Result{}, err
		}
		s.clearPending()
		s.failedInstance = false
		if err := s.loadGeneric(ctx, rw, srw); err != nil { // those of the cell, in the fresh interpreter
			return Result{}, err
		}
	} else if pc.hasDecls {
		if err := s.runDecls(ctx, pc, info, declEd, rw); err != nil {
			return Result{}, err
		}
		s.commit(recs, imps)
		s.addForwards(rw.Forwards(), false) // internal/rewrite/rewrite_embed.go
	}
	if src := rewrite.StructTypes(pc.decls.Decls) + rewrite.MethodTypes(pc.decls.Decls, info) + rw.AnyTypes(pc.decls.Decls); src != "" {
		// fmt's type names, and the conversions of values with methods
		// (internal/rt/ifacevalue.go): a failure does not fail the cell, whose
		// values then print and convert as yaegi has them.
		_, _ = s.eval(ctx, blockPrefix+src, nil)
	}
	if declaresMain(pc.decls) && !rewrite.CallsMain(pc.body) {
		if _, err := s.eval(ctx, helperMain+"()", nil); err != nil {
			return Result{}, err
		}
	}
	if !pc.hasStmts {
		return Result{}, nil
	}
	if srw.HasGoFuncs() {
		if _, err := s.eval(ctx, "package main\n"+srw.GoDecls(), srw); err != nil {
			return Result{}, err
		}
	}
	if err := s.makeInstances(ctx, srw); err != nil { // internal/rewrite/geninstance.go
		return Result{}, err
	}
	if err := s.declareFuncLits(ctx, pc, srw); err != nil { // frames.go
		return Result{}, err
	}
	return s.runStmts(ctx, pc, info, stmtEd, srw)
}

// refuseBeforeTier returns the compile error of a cell that Go refuses
// (typecheck.Refused), checked before the compiled tier builds its
// declarations: a build that fails on the cell's own error printed a
// notice that the cell runs interpreted, with the build's error, before
// the session refused it. Only when the tier is on and the cell may
// declare something (compiledCell's test); a package that the cell uses
// without importing it is not imported here, so an error in a statement
// that names one waits for Eval's own check.
func (s *Session) refuseBeforeTier(n int, cell string) *Error {
	if (CompiledOff && !s.compiled.force) || s.compiled.broken != "" ||
		(!strings.Contains(cell, "func") && !strings.Contains(cell, "type") && !strings.Contains(cell, "var")) {
		return nil
	}
	pc, err := parseCell(token.NewFileSet(), n, cell)
	if err != nil {
		return nil // Eval reports it
	}
	var errs []types.Error
	globals := globalsOf(s.i)
	env := s.checkEnv(globals)
	env.Errors = func(e types.Error) { errs = append(errs, e) }
	info, _ := typecheck.Cell(pc.fset, pc.decls, pc.body, env)
	if refused := typecheck.Refused(info, errs, typecheck.GlobalsExact(env), pc.decls, pc.body); len(refused) > 0 {
		return compileErrors(refused)
	}
	return nil
}

// importNames maps the import paths of the session and of the cell to
// the names they are imported as.
func (s *Session) importNames(pc *parsedCell) map[string]string {
	names := map[string]string{}
	for _, im := range s.imports {
		names[im.path] = im.name
	}
	for _, is := range pc.decls.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		names[p] = declname.Import(is)
	}
	for p, n := range names {
		if n == "_" || n == "." {
			delete(names, p)
		}
	}
	return names
}

// knows reports whether name is declared or imported by an earlier cell.
func (s *Session) knows(name string) bool {
	if _, ok := s.user[name]; ok {
		return true
	}
	for _, im := range s.imports {
		if im.name == name {
			return true
		}
	}
	return false
}

// checkEnv is what the type checker is told of the session.
func (s *Session) checkEnv(globals map[string]reflect.Value) typecheck.Env {
	imps := make([]typecheck.Import, len(s.imports))
	for k, im := range s.imports {
		imps[k] = typecheck.Import{Name: im.name, Path: im.path}
	}
	return typecheck.Env{Globals: globals, Earlier: s.earlier, Imports: imps, Known: s.knows}
}

// earlier yields the records of the declarations of earlier cells, in
// order, as the type checker reads them.
func (s *Session) earlier(yield func(typecheck.Record) bool) {
	for _, r := range s.records {
		if !yield(typecheck.Record{Names: r.names, Tok: r.tok, Method: r.method, Dead: r.dead, Sig: r.sig, Text: r.text}) {
			return
		}
	}
}

func declaresMain(f *ast.File) bool {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && rewrite.PlainFunc(fd) && fd.Name.Name == "main" {
			return true
		}
	}
	return false
}

// blockPrefix starts the text of statements, so that yaegi reads it as
// statements even when the first one is a var declaration.
const blockPrefix = "_ = 0\n"

// runStmts runs the statements of a cell; a trailing expression's value
// is the result.
func (s *Session) runStmts(ctx context.Context, pc *parsedCell, info *types.Info, ed *rewrite.Editor, rw *rewrite.Rewriter) (Result, error) {
	list := pc.body.List
	if len(list) == 0 {
		return Result{}, nil
	}
	last, _ := list[len(list)-1].(*ast.ExprStmt)
	end := list[len(list)-1].End()
	if rw.InOrderEnd() > end {
		// A declaration initialised among the statements comes last
		// (internal/rewrite/hoist.go): the cell ends with it, not with a value.
		end, last = rw.InOrderEnd(), nil
	}
	wrap := last != nil && showsValue(last.X, info)
	if wrap {
		ed.Insert(last.X.Pos(), rt.Values+"(", true)
		ed.Insert(last.X.End(), ")", true)
	}
	text := func(w bool) string { return blockPrefix + ed.Piece(list[0].Pos(), end, "", w) }
	v, err := s.eval(ctx, text(wrap), rw)
	var e *Error
	if err != nil && wrap && errors.As(err, &e) && e.Name == nameCompile {
		// A call of no value cannot be an argument: run it plainly.
		wrap = false
		v, err = s.eval(ctx, text(false), rw)
	}
	if err = s.runDefers(err); err != nil {
		return Result{}, err
	}
	if !wrap || !v.IsValid() || !v.CanInterface() {
		return Result{}, nil
	}
	vals, ok := v.Interface().([]any)
	if !ok {
		return Result{}, nil
	}
	return Result{HasValue: true, Value: render(vals)}, nil
}

// showsValue reports whether a trailing expression statement should show
// its value: not a call of no value, nor a print call.
func showsValue(e ast.Expr, info *types.Info) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return true
	}
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		switch f.Name {
		case "println", "print", "panic", "clear":
			return false
		}
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok && (x.Name == "fmt" || x.Name == "log") &&
			(strings.HasPrefix(f.Sel.Name, "Print") || strings.HasPrefix(f.Sel.Name, "Fprint")) {
			return false
		}
	}
	if tv, ok := info.Types[e]; ok {
		if t, ok := tv.Type.(*types.Tuple); ok && t.Len() == 0 {
			return false
		}
	}
	return true
}

// runDecls runs the declarations of a cell in phases, because yaegi cannot
// initialise a package-level var that refers to a variable of an earlier
// cell ("variable definition loop"): variables and functions (as function
// variables) are declared and assigned by statements.
//
//  1. a file: imports, types, constants;
//  2. statements: `var f func(...)` for each function, `var v T` for each
//     variable whose type is written or inferred;
//  3. a file: methods, generic functions, init;
//  4. statements: `f = func(...) {...}` for each function, then the
//     variables' assignments (and declarations, of those whose type is
//     unknown) in Go's initialisation order: dependencies first.
func (s *Session) runDecls(ctx context.Context, pc *parsedCell, info *types.Info, ed *rewrite.Editor, rw *rewrite.Rewriter) error {
	names := s.importNames(pc)
	typeOf := func(id *ast.Ident) (string, bool) {
		obj := info.Defs[id]
		if obj == nil || obj.Type() == nil {
			return "", false
		}
		return rewrite.TypeText(obj.Type(), names)
	}
	// Variables are initialised in Go's order (dependencies first), which
	// go/types computed; rank is an object's place in it.
	rank := map[types.Object]int{}
	for k, in := range info.InitOrder {
		for _, v := range in.Lhs {
			rank[v] = k
		}
	}
	type init struct {
		rank int
		defPiece
	}
	var varInits []init
	addInit := func(ids []*ast.Ident, text string, decl bool) {
		r := len(info.InitOrder) + len(varInits) // unknown: after, in source order
		for _, id := range ids {
			if k, ok := rank[info.Defs[id]]; ok {
				r = min(r, k)
			}
		}
		varInits = append(varInits, init{r, defPiece{text, decl}})
	}
	var inits []string // the bodies of init functions, called last
	var file1, file3, st2 strings.Builder
	// The first file is the imports, the types and constants, the generic
	// types whose methods come with them, and the types and constants that
	// use those (rewrite.EarlyMethods).
	var imports1, file1Generic, file1Late strings.Builder
	early, moved, late := rewrite.EarlyMethods(pc.fset, pc.decls, info)
	var st4 []defPiece // phase 4: the functions' assignments, then the variables
	var fresh []string // the functions' variables that phase 2 declares
	st2.WriteString(rw.HoistDecl())
	var newImports []importRec
	for _, d := range pc.decls.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" && d.Body != nil && d.Type.TypeParams == nil {
				// init runs after the cell's variables are initialised,
				// as in Go (yaegi ran it with the declarations).
				inits = append(inits, strings.TrimSuffix(ed.Piece(d.Body.Pos(), d.End(), "func() ", false), "\n")+"()\n")
				continue
			}
			if moved[d] {
				continue // with its type
			}
			if !rewrite.PlainFunc(d) {
				file3.WriteString(ed.Piece(d.Pos(), d.End(), "", false))
				continue
			}
			name := rewrite.FuncName(d)
			sig := ed.Text(d.Type.Params.Pos(), d.Type.End(), false)
			// Keep the variable of an earlier definition with the same
			// signature, so that its callers see the new body.
			if old, ok := s.user[d.Name.Name]; !ok || old.tok != token.FUNC || old.method || old.sigKey != normalize(sig) || !s.isFuncGlobal(name) {
				st2.WriteString(ed.Piece(d.Type.Params.Pos(), d.Type.End(), "var "+name+" func", false))
				fresh = append(fresh, name)
			}
			st4 = append(st4, defPiece{text: ed.Piece(d.Type.Params.Pos(), d.End(), name+" = func", false)})
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				// Importing a package again (a cell run twice) is
				// harmless in a notebook; yaegi would refuse it.
				for _, sp := range d.Specs {
					is := sp.(*ast.ImportSpec)
					if rewrite.IsIterImport(is) {
						// Known to go/types only (internal/rewrite/iter.go).
						if !s.imported(is) {
							newImports = append(newImports, importRec{declname.Import(is), "iter"})
						}
						continue
					}
					if !s.imported(is) {
						imports1.WriteString(ed.Piece(is.Pos(), is.End(), "import ", false))
						p, _ := strconv.Unquote(is.Path.Value)
						newImports = append(newImports, importRec{declname.Import(is), p})
					}
				}
				continue
			}
			if ms, ok := early[d]; ok {
				file1Generic.WriteString(ed.Piece(d.Pos(), d.End(), "", false))
				for _, m := range ms {
					file1Generic.WriteString(ed.Piece(m.Pos(), m.End(), "", false))
				}
				continue
			}
			if late[d] {
				file1Late.WriteString(ed.Piece(d.Pos(), d.End(), "", false))
				continue
			}
			if d.Tok != token.VAR {
				file1.WriteString(ed.Piece(d.Pos(), d.End(), "", false))
				continue
			}
			for _, sp := range d.Specs {
				vs := sp.(*ast.ValueSpec)
				typs := make([]string, len(vs.Names))
				known := true
				for k, n := range vs.Names {
					if vs.Type != nil {
						typs[k] = ed.Text(vs.Type.Pos(), vs.Type.End(), false)
					} else if typs[k], known = typeOf(n); !known {
						break
					}
				}
				if whole, _ := rw.InOrder(vs); whole {
					continue // declared among the statements (internal/rewrite/hoist.go)
				}
				if !known {
					addInit(vs.Names, ed.Piece(vs.Pos(), vs.End(), "var ", false), true)
					continue
				}
				for k, n := range vs.Names {
					if n.Name != "_" { // `var _ T` alone is no declaration, and yaegi refuses it
						fmt.Fprintf(&st2, "\nvar %s %s\n", n.Name, typs[k])
					}
				}
				_, moved := rw.InOrder(vs)
				switch {
				case moved:
					// Initialised among the statements (internal/rewrite/hoist.go).
				case len(vs.Values) == len(vs.Names):
					for k, n := range vs.Names {
						addInit(vs.Names[k:k+1], ed.Piece(vs.Values[k].Pos(), vs.Values[k].End(), n.Name+" = ", false), false)
					}
				case len(vs.Values) > 0:
					names := make([]string, len(vs.Names))
					for k, n := range vs.Names {
						names[k] = n.Name
					}
					addInit(vs.Names, ed.Piece(vs.Values[0].Pos(), vs.Values[len(vs.Values)-1].End(), strings.Join(names, ", ")+" = ", false), false)
				}
			}
		}
	}
	sort.SliceStable(varInits, func(i, j int) bool { return varInits[i].rank < varInits[j].rank })
	for _, in := range varInits {
		st4 = append(st4, in.defPiece)
	}
	for _, in := range inits {
		st4 = append(st4, defPiece{text: in})
	}
	var steps []string
	first := imports1.String() + file1.String() + file1Generic.String() + file1Late.String()
	if first != "" {
		steps = append(steps, "package main\n"+first)
	}
	declared := len(steps) // the step after which fresh are declared
	if st2.Len() > 0 {
		steps = append(steps, blockPrefix+st2.String())
	}
	file3.WriteString(rw.GoDecls()) // internal/rewrite/rewrite_go.go
	if file3.Len() > 0 {
		steps = append(steps, "package main\n"+file3.String())
	}
	steps = append(steps, s.defSteps(st4)...) // frames.go
	for k, src := range steps {
		if _, err := s.eval(ctx, src, rw); err != nil {
			// A later part failed (a compile error in a body, an
			// interrupt): the functions' variables stay unassigned, and
			// a call would fail with reflect's "call of nil function".
			// Undeclare them, so that a call is a compile error naming
			// the function. FuzzCells found it (nilfunc.cell). An
			// interrupt during the declarations themselves may have left
			// them made too.
			var e *Error
			if k > declared || k == declared && errors.As(err, &e) && e.Name == nameInterrupted {
				frame.Forget(s.i, fresh) // internal/frame
			}
			return err
		}
		if k == 0 && first != "" {
			// The imports are in the interpreter now, whatever follows.
			s.commit(nil, newImports)
		}
	}
	return nil
}

func (s *Session) imported(is *ast.ImportSpec) bool {
	p, _ := strconv.Unquote(is.Path.Value)
	for _, im := range s.imports {
		if im.name == declname.Import(is) && im.path == p {
			return true
		}
	}
	return false
}

func (s *Session) isFuncGlobal(name string) bool {
	v, ok := globalsOf(s.i)[name]
	return ok && v.IsValid() && v.Kind() == reflect.Func
}

// eval compiles and runs src in the interpreter, cancelled by ctx, and
// converts its failures into *Error. On cancellation it waits (up to
// stopWait) for yaegi's goroutine to stop, so that the next cell does not
// race with it.
func (s *Session) eval(ctx context.Context, src string, rw *rewrite.Rewriter) (reflect.Value, error) {
	if debugSrc {
		fmt.Fprintf(os.Stderr, "--- eval:\n%s\n", src)
	}
	s.errw.take()
	mark := frame.SourceMark(s.i)
	goroutines := runtime.NumGoroutine() // blocking.go's leftBehind
	tag := newCellTag()                  // blocking.go's leftBehind
	slots := frame.Len(s.i)              // internal/frame
	var o evalOutcome
	var interrupted, stopped bool
	if run := s.debugRunFor(src); run != nil {
		o, interrupted, stopped = s.evalDebug(ctx, run, src) // breakpoint.go
		tag = ""                                             // not labelled: leftBehind counts the process's goroutines
		if e := staleFuncError(o.err); e != nil {
			s.errw.take()
			return reflect.Value{}, e
		}
	} else {
		o, interrupted, stopped = evalStoppable(ctx, s.i, src, s.exit, s.calls.fire, tag) // stop.go
		s.calls.reset()                                                                   // blocking.go
	}
	if stopped && strings.HasPrefix(src, blockPrefix) && !strings.Contains(src, "func") {
		// Statements that made no function: nothing of them runs again.
		defer frame.DropSources(s.i, mark) // internal/frame
		if !s.opts.Debuggable && !s.keepSlots {
			frame.Trim(s.i, slots, src, func() map[string]reflect.Value { return globalsOf(s.i) }, s.rt.WithMethods) // internal/frame
		}
	}
	if o.exited {
		return reflect.Value{}, exitError(o.code)
	}
	if interrupted && !stopped {
		s.unstopped, s.stuck = true, true
	}
	if o.err == nil && !interrupted {
		return o.v, nil
	}
	if interrupted {
		e := &Error{Name: nameInterrupted, Value: "the cell was interrupted"}
		if !stopped {
			e.Value += " (it is still running in a compiled call and will stop when that returns)"
		}
		e.Traceback = []string{e.Name + ": " + e.Value}
		if stopped {
			e.Traceback = append(e.Traceback, leftBehind(tag, goroutines)...) // blocking.go
		}
		return reflect.Value{}, e
	}
	var pv yaegi.Panic
	if errors.As(o.err, &pv) {
		// A name that go/types found undefined explains a failure inside
		// yaegi better than yaegi does: var t T with no T panics in its
		// compiler ("nil reflect type"), main() with no main in reflect.
		undefined := rw != nil && len(rw.Undefined()) > 0
		if bytes.Contains(pv.Stack, []byte("yaegi/interp.(*Interpreter).CompileAST")) {
			if undefined {
				return reflect.Value{}, undefinedError(rw.Undefined()[0])
			}
			return reflect.Value{}, s.compilePanic(pv.Value, rw)
		}
		if undefined && strings.HasPrefix(fmt.Sprint(pv.Value), "reflect: ") {
			s.errw.take()
			return reflect.Value{}, undefinedError(rw.Undefined()[0])
		}
		pv.Value = s.rt.PanicValue(pv.Value) // internal/rt/ifaceassert.go
		return reflect.Value{}, runtimeError(pv, s.errw.take())
	}
	e := compileError(o.err)
	if rw != nil && len(rw.Undefined()) > 0 && e.Name == nameCompile && !strings.Contains(e.Value, "undefined") {
		// yaegi reports some undefined names obscurely
		// ("constant definition loop"); go/types says it plainly.
		return reflect.Value{}, undefinedError(rw.Undefined()[0])
	}
	return reflect.Value{}, e
}

// undefinedError is the compile error of a name go/types found undefined.
func undefinedError(u types.Error) *Error {
	pos := u.Fset.Position(u.Pos)
	return &Error{Name: nameCompile, Value: u.Msg, Traceback: []string{cellPos(pos.Line, pos.Column) + ": " + u.Msg}}
}

// compilePanic converts an internal panic of yaegi's compiler, naming the
// construct when it can.
func (s *Session) compilePanic(r any, rw *rewrite.Rewriter) *Error {
	if fmt.Sprint(r) == "nil type" && rw != nil && rw.Unknown().IsValid() {
		pos := s.fset.Position(rw.Unknown())
		text := "range over an int or a function whose type the session could not infer is not supported by the interpreter (write for i := 0; i < n; i++)"
		return &Error{Name: nameUnsupported, Value: text, Traceback: []string{cellPos(pos.Line, pos.Column) + ": " + text}}
	}
	return internalError(r)
}

// goroutineID parses the current goroutine's id from its stack header.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		id, _ := strconv.ParseUint(string(b[:i]), 10, 64)
		return id
	}
	return 0
}

// waitStopped waits until the goroutine that yaegi's ExecuteWithContext
// started from goroutine id has ended. yaegi offers no handle on it, so
// this looks for it in the stacks of all goroutines.
func waitStopped(id uint64, limit time.Duration) bool {
	marker := []byte("created by github.com/traefik/yaegi/interp.(*Interpreter).ExecuteWithContext in goroutine " + strconv.FormatUint(id, 10) + "\n")
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(limit)
	for {
		n := runtime.Stack(buf, true)
		if n == len(buf) && len(buf) < 64<<20 {
			buf = make([]byte, 2*len(buf))
			continue
		}
		if !bytes.Contains(buf[:n], marker) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func internalError(r any) *Error {
	if os.Getenv("GNNLAB_DEBUG_STACK") != "" {
		os.Stderr.Write(debug.Stack())
	}
	text := fmt.Sprintf("the interpreter cannot run this cell (internal error: %v)", r)
	return &Error{Name: nameUnsupported, Value: mapPositions(text), Traceback: []string{nameUnsupported + ": " + mapPositions(text)}}
}

func unsupported(fset *token.FileSet, err error) *Error {
	var u *rewrite.UnsupportedError
	if errors.As(err, &u) {
		pos := fset.Position(u.Pos())
		return &Error{Name: nameUnsupported, Value: u.Msg(), Traceback: []string{cellPos(pos.Line, pos.Column) + ": " + u.Msg()}}
	}
	return &Error{Name: nameUnsupported, Value: err.Error(), Traceback: []string{err.Error()}}
}

// collect makes the records of a cell's declarations and imports.
func (s *Session) collect(pc *parsedCell) ([]*declRec, []importRec) {
	fset := s.fset
	tf := fset.File(pc.decls.Pos())
	text := func(from, to token.Pos) string {
		a, b := tf.Offset(from), tf.Offset(to)
		return pc.declSrc[a:b]
	}
	var recs []*declRec
	var imps []importRec
	for _, d := range pc.decls.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			for _, sp := range gd.Specs {
				is := sp.(*ast.ImportSpec)
				p, _ := strconv.Unquote(is.Path.Value)
				imps = append(imps, importRec{declname.Import(is), p})
			}
			continue
		}
		pos := fset.Position(d.Pos())
		r := &declRec{names: declname.Of(d), cell: pc.n, text: text(d.Pos(), d.End()), line: pos.Line}
		r.src = "\n//line " + cellFile + ":" + strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Column) + "\n" + r.text + "\n"
		switch d := d.(type) {
		case *ast.FuncDecl:
			r.tok, r.method = token.FUNC, d.Recv != nil
			r.sig = r.text
			if d.Body != nil {
				r.sig = strings.TrimSpace(text(d.Pos(), d.Body.Lbrace))
			}
			r.doc = d.Doc.Text()
			r.sigKey = normalize(text(d.Type.Params.Pos(), d.Type.End()))
		case *ast.GenDecl:
			r.tok, r.sig, r.doc = d.Tok, r.text, d.Doc.Text()
		}
		recs = append(recs, r)
	}
	return recs, imps
}

// needsReplay reports whether the new declarations redefine a type or a
// method with a different text: yaegi would keep the old one.
func (s *Session) needsReplay(recs []*declRec) bool {
	for _, r := range recs {
		if s.forwarded(r) { // internal/rewrite/rewrite_embed.go
			return true
		}
		if r.tok != token.TYPE && !r.method {
			continue
		}
		for _, n := range r.names {
			if old, ok := s.user[n]; ok && old.tok == r.tok && normalize(old.text) != normalize(r.text) {
				return true
			}
		}
	}
	return false
}

func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// commit adds a successful cell's declarations to the session's records.
func (s *Session) commit(recs []*declRec, imps []importRec) {
	for _, im := range imps {
		found := false
		for k := range s.imports {
			if s.imports[k].name == im.name {
				s.imports[k], found = im, true
			}
		}
		if !found {
			s.imports = append(s.imports, im)
		}
	}
	for _, r := range recs {
		for _, n := range r.names {
			if old, ok := s.user[n]; ok {
				old.names = remove(old.names, n)
				if len(old.names) == 0 {
					old.dead = true
				}
			}
		}
	}
	for _, r := range recs {
		for _, n := range r.names {
			s.user[n] = r
		}
		s.records = append(s.records, r)
	}
	// A record whose every name was redefined is not read again: keeping
	// it made a session that redefines a function keep every version.
	live := s.records[:0]
	for _, r := range s.records {
		if !r.dead {
			live = append(live, r)
		}
	}
	clear(s.records[len(live):])
	s.records = live
}

func remove(list []string, s string) []string {
	out := list[:0:0]
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// rebuild starts a fresh interpreter and replays the recorded imports and
// declarations with the cell's new ones; see "Redefinition" in the
// package doc.
func (s *Session) rebuild(ctx context.Context, recs []*declRec, imps []importRec) error {
	old, oldGeneric, oldInstances := s.i, s.generic, s.instances
	oldGlobals := globalsOf(old)
	// Work on copies so that a failed rebuild leaves the session as it was.
	saved := struct {
		imports []importRec
		records []*declRec
		user    map[string]*declRec
		dead    map[*declRec][]string
	}{append([]importRec(nil), s.imports...), append([]*declRec(nil), s.records...), map[string]*declRec{}, map[*declRec][]string{}}
	for k, v := range s.user {
		saved.user[k] = v
	}
	for _, r := range s.records {
		saved.dead[r] = r.names
	}
	restore := func() {
		s.i, s.imports, s.records, s.user, s.generic, s.instances = old, saved.imports, saved.records, saved.user, oldGeneric, oldInstances
		for r, names := range saved.dead {
			r.names, r.dead = names, len(names) == 0
		}
	}
	s.commit(recs, imps)
	ni, err := s.newInterp()
	if err != nil {
		restore()
		return err
	}
	// Variables that statements defined are carried over when their type
	// is one the new interpreter shares (no interpreted types).
	declared := map[string]bool{}
	for _, r := range s.records {
		if !r.dead {
			for _, n := range r.names {
				declared[n] = true
			}
		}
	}
	carry := map[string]reflect.Value{}
	var dropped []string
	var src strings.Builder
	src.WriteString("package main\n")
	for _, im := range s.imports {
		// A later cell declared the import's name (var fs after import
		// "io/fs"): in one file the two would clash.
		if declared[im.name] {
			continue
		}
		// iter is known to go/types only: the rewrites need it to write
		// iter.Seq[V] as a function type, and the import is cut from
		// what yaegi evaluates below (internal/rewrite/iter.go).
		fmt.Fprintf(&src, "import %s %q\n", im.name, im.path)
	}
	src.WriteString("import __gnnlab_carry \"gnnlabcarry\"\n")
	names := make([]string, 0, len(oldGlobals))
	for n := range oldGlobals {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := oldGlobals[n]
		if declared[n] || strings.HasPrefix(n, helperPrefix) || !v.IsValid() {
			continue
		}
		if v.Type().Implements(constantValue) {
			// yaegi's constant, of a cell that failed after declaring it
			// (a recorded one is declared above): no variable of the
			// session, and no type a variable could take (the rebuild
			// failed with "reflect.Value.Convert: value of type int cannot
			// be converted to type constant.Value", rebuildconst.cell).
			dropped = append(dropped, n)
			continue
		}
		if !carriable(v, 0) {
			dropped = append(dropped, n)
			continue
		}
		cv := reflect.New(v.Type()).Elem()
		cv.Set(v)
		key := "V" + strconv.Itoa(len(carry))
		carry[key] = cv
		// Where the type can be written without a package, write it: a
		// channel declared from the symbol alone (var ch =
		// __gnnlab_carry.V0) failed every send in yaegi with an internal
		// error (rebuildchan.cell).
		typ := ""
		if ts := cv.Type().String(); !strings.ContainsAny(ts, ".") {
			typ = " " + ts
		}
		fmt.Fprintf(&src, "var %s%s = __gnnlab_carry.%s\n", n, typ, key)
	}
	if err := ni.Use(yaegi.Exports{"gnnlabcarry/gnnlabcarry": carry}); err != nil {
		restore()
		return fmt.Errorf("interp: rebuild: %w", err)
	}
	// Declarations that use a dropped variable are dropped too (replayblank.go).
	text, skipped, err := replayText(src.String(), s.records, recs, dropped)
	if err != nil {
		restore()
		return err
	}
	for _, r := range skipped {
		dropped = append(dropped, r.names...)
		r.names, r.dead = nil, true
	}
	s.i = ni
	s.generic, s.instances = nil, nil
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, cellFile, text, parser.ParseComments)
	if err != nil {
		restore()
		return parseError(fset, err)
	}
	pc := &parsedCell{decls: f, body: &ast.BlockStmt{}}
	info, _ := typecheck.Cell(fset, pc.decls, pc.body, typecheck.Env{})
	out, err := rewrite.Apply(&rewrite.Cell{Fset: fset, Decls: f, DeclSrc: text, Body: pc.body}, info, rewrite.Env{Seq: &s.defs, Replay: true})
	if err != nil {
		restore()
		return unsupported(fset, err)
	}
	rw, ed := out.Decl, out.Decl.Editor()
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && len(g.Specs) == 1 && rewrite.IsIterImport(g.Specs[0].(*ast.ImportSpec)) {
			ed.Replace(g.Pos(), g.End(), "")
		}
	}
	if err := s.loadGeneric(ctx, rw); err != nil { // internal/rewrite/genericstd.go, for the fresh interpreter
		restore()
		return err
	}
	if _, err := s.eval(ctx, ed.Text(f.Pos(), token.Pos(fset.File(f.Pos()).Base()+len(text)), false)+rw.GoDecls(), rw); err != nil {
		restore()
		if e, ok := err.(*Error); ok {
			e.Value = "redefining a type replays the earlier declarations in a fresh interpreter, and that failed: " + e.Value
			return e
		}
		return err
	}
	s.addForwards(rw.Forwards(), true) // internal/rewrite/rewrite_embed.go
	impNames := map[string]string{}
	for _, im := range s.imports {
		impNames[im.path] = im.name
	}
	rw.SetNames(impNames)
	if src := rw.AnyTypes(f.Decls); src != "" { // internal/rt/fmtany.go: the fresh interpreter's types
		_, _ = s.eval(ctx, blockPrefix+src, nil)
	}
	// Variables whose declarations re-ran get their old values back when
	// their type did not change.
	fresh := map[string]bool{}
	for _, r := range recs {
		for _, n := range r.names {
			fresh[n] = true
		}
	}
	var reinit []string
	newGlobals := globalsOf(ni)
	for _, r := range s.records {
		if r.dead || r.tok != token.VAR {
			continue
		}
		for _, n := range r.names {
			ov, nv := oldGlobals[n], newGlobals[n]
			if fresh[n] || !ov.IsValid() || !nv.IsValid() {
				continue
			}
			if ov.Type() == nv.Type() && nv.CanSet() {
				nv.Set(ov)
			} else {
				reinit = append(reinit, n)
			}
		}
	}
	if len(reinit)+len(dropped) > 0 {
		var b strings.Builder
		b.WriteString("interp: a type changed, so the session was rebuilt from its declarations")
		if len(reinit) > 0 {
			fmt.Fprintf(&b, "; re-initialised: %s", strings.Join(reinit, ", "))
		}
		if len(dropped) > 0 {
			fmt.Fprintf(&b, "; dropped (re-run the cells that set them): %s", strings.Join(dropped, ", "))
		}
		fmt.Fprintln(s.errw, b.String())
	}
	return nil
}

// constantValue is the type of yaegi's constants among its globals.
var constantValue = reflect.TypeFor[constant.Value]()

// carriable reports whether v can move to a new interpreter: its type
// holds no interpreted (unnamed struct) type and no function.
func carriable(v reflect.Value, depth int) bool {
	if depth > 8 {
		return false
	}
	var ok func(t reflect.Type) bool
	ok = func(t reflect.Type) bool {
		switch t.Kind() {
		case reflect.Func, reflect.UnsafePointer:
			return false
		case reflect.Struct:
			return t.Name() != ""
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			return t.Name() != "" || ok(t.Elem())
		case reflect.Map:
			return t.Name() != "" || (ok(t.Key()) && ok(t.Elem()))
		}
		return true
	}
	if !ok(v.Type()) {
		return false
	}
	if v.Kind() == reflect.Interface && !v.IsNil() {
		return carriable(v.Elem(), depth+1)
	}
	return true
}

// globalsOf returns i's globals. A cell that fails to compile after
// declaring a variable (`f := func() { undefinedName }`) leaves yaegi with
// a symbol whose frame slot was never allocated, and Globals then panics
// with "index out of range" for every later cell. Running an empty
// statement makes yaegi grow its frame to the symbols it knows, after which
// Globals works again; the failed cell's variable holds its zero value.
func globalsOf(i *yaegi.Interpreter) (g map[string]reflect.Value) {
	defer func() {
		if recover() != nil {
			if _, err := i.Eval("_ = 0"); err == nil {
				g = i.Globals()
			} else {
				g = map[string]reflect.Value{}
			}
		}
	}()
	return i.Globals()
}

// runDefers runs the cell's deferred calls, last first. err is the
// cell's error; a panic in a deferred call becomes the error when the cell
// had none, as it would end a Go program.
func (s *Session) runDefers(err error) error {
	calls := s.rt.TakeDefers()
	if e, ok := err.(*Error); ok && e.Name == nameExit {
		return err // os.Exit runs no deferred call
	}
	for k := len(calls) - 1; k >= 0; k-- {
		func() {
			defer func() {
				if r := recover(); r != nil && err == nil {
					msg := mapPositions(fmt.Sprint(r))
					err = &Error{Name: namePanic, Value: msg, Traceback: []string{namePanic + ": " + msg + " (in a deferred call)"}}
				}
			}()
			calls[k]()
		}()
	}
	return err
}
