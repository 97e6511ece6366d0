package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/interp/symbols"
	"github.com/gnnlab/gnnlab/viz/display"
	yaegi "github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
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
	count   int         // cells evaluated (the N of cell[N])
	imports []importRec // imports of earlier cells, for replay
	records []*declRec  // declarations of earlier cells, in order
	user    map[string]*declRec
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
	dead   bool // every name redefined by a later cell
}

// New starts a session with the preloaded packages.
func New(opts Options) (*Session, error) {
	s := &Session{
		opts:   opts,
		stdin:  opts.Stdin,
		stdout: orStdout(opts.Stdout),
		errw:   &errWriter{w: orStderr(opts.Stderr)},
		user:   map[string]*declRec{},
	}
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

// runtimeSymbols are compiled helpers that rewritten cells call.
func runtimeSymbols() yaegi.Exports {
	values := func(v ...any) []any { return v }
	clear := func(x any) {
		v := reflect.ValueOf(x)
		switch v.Kind() {
		case reflect.Map, reflect.Slice:
			v.Clear()
		}
	}
	vv := reflect.ValueOf(values)
	return yaegi.Exports{
		"gnnlabrt/gnnlabrt": {"Values": vv, "Clear": reflect.ValueOf(clear)},
		// Interpreted values passed to Values are wrapped so that they
		// keep these methods (yaegi's "MapTypes").
		".": {"MapTypes": reflect.ValueOf(map[reflect.Value][]reflect.Type{vv: {
			reflect.TypeFor[display.Renderer](),
			reflect.TypeFor[fmt.Stringer](),
			reflect.TypeFor[error](),
		}})},
	}
}

func (s *Session) newInterp() (*yaegi.Interpreter, error) {
	i := yaegi.New(yaegi.Options{
		Stdin:  s.stdin,
		Stdout: s.stdout,
		Stderr: s.errw,
		Env:    os.Environ(),
	})
	stdin, stdout, stderr := s.stdin, s.stdout, io.Writer(s.errw)
	for _, e := range []yaegi.Exports{
		stdlib.Symbols,
		symbols.Symbols,
		runtimeSymbols(),
		// os.Stdin/Stdout/Stderr of cells are the session's streams
		// (as io.Reader and io.Writer, not *os.File).
		{"os/os": {
			"Stdin":  reflect.ValueOf(&stdin).Elem(),
			"Stdout": reflect.ValueOf(&stdout).Elem(),
			"Stderr": reflect.ValueOf(&stderr).Elem(),
		}},
	} {
		if err := i.Use(e); err != nil {
			return nil, fmt.Errorf("interp: loading symbols: %w", err)
		}
	}
	f, err := parser.ParseFile(i.FileSet(), cellFile, helperSrc, 0)
	if err != nil {
		return nil, fmt.Errorf("interp: helpers: %w", err)
	}
	p, err := i.CompileAST(f)
	if err != nil {
		return nil, fmt.Errorf("interp: helpers: %w", err)
	}
	if _, err := i.Execute(p); err != nil {
		return nil, fmt.Errorf("interp: helpers: %w", err)
	}
	return i, nil
}

// Eval runs one cell. Cancelling ctx interrupts it (an *Error named
// "interrupted"); the session keeps its state.
func (s *Session) Eval(ctx context.Context, cell string) (res Result, err error) {
	s.count++
	n := s.count
	defer func() {
		if r := recover(); r != nil {
			res, err = Result{}, internalError(r)
		}
	}()
	pc, err := parseCell(s.i.FileSet(), n, cell)
	if err != nil {
		return Result{}, parseError(s.i.FileSet(), err)
	}
	recs, imps := s.collect(pc)
	if s.needsReplay(recs) {
		if err := s.rebuild(ctx, recs, imps); err != nil {
			return Result{}, err
		}
		// The statements run in the new interpreter: parse them there.
		if pc, err = parseCell(s.i.FileSet(), n, cell); err != nil {
			return Result{}, parseError(s.i.FileSet(), err)
		}
	} else if pc.hasDecls {
		globals := s.i.Globals()
		info, undef := typecheck(s.i.FileSet(), pc, globals, s.records)
		rw := &rewriter{info: info, globals: globals, undefined: undef}
		if err := rw.rewrite(pc.decls); err != nil {
			return Result{}, unsupported(err)
		}
		if err := s.runDecls(ctx, pc, info, rw); err != nil {
			return Result{}, err
		}
		s.commit(recs, imps)
	}
	if !pc.hasStmts {
		return Result{}, nil
	}
	return s.runStmts(ctx, pc)
}

// runStmts runs the statements of a cell; a trailing expression's value
// is the result.
func (s *Session) runStmts(ctx context.Context, pc *parsedCell) (Result, error) {
	globals := s.i.Globals()
	info, undef := typecheck(s.i.FileSet(), pc, globals, s.records)
	rw := &rewriter{info: info, globals: globals, undefined: undef}
	if err := rw.rewrite(pc.body); err != nil {
		return Result{}, unsupported(err)
	}
	list := pc.body.List
	var last *ast.ExprStmt
	if len(list) > 0 {
		last, _ = list[len(list)-1].(*ast.ExprStmt)
	}
	wrap := last != nil && showsValue(last.X, info)
	if wrap {
		list[len(list)-1] = &ast.ExprStmt{X: &ast.CallExpr{Fun: rtFunc("Values", last.X.Pos()), Args: []ast.Expr{last.X}, Lparen: last.X.Pos(), Rparen: last.X.End()}}
	}
	p, err := s.compile(pc.body, rw)
	if err != nil && wrap {
		// A call of no value cannot be an argument: run it plainly.
		list[len(list)-1] = last
		wrap = false
		p, err = s.compile(pc.body, rw)
	}
	if err != nil {
		return Result{}, err
	}
	v, err := s.run(ctx, p)
	if err != nil {
		return Result{}, err
	}
	if !wrap || !v.IsValid() {
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

// runDecls compiles and runs the declarations of a cell in phases, because
// yaegi cannot initialise a package-level var that refers to a variable of
// an earlier cell ("variable definition loop"): variables and functions
// (as function variables) are declared and assigned by statements.
//
//  1. a file: imports, types, constants;
//  2. statements: `var f func(...)` for each function, `var v T` for each
//     variable whose type is written or inferred;
//  3. a file: methods, generic functions, init;
//  4. statements: variables of unknown type that need no function of the
//     cell, `f = func(...) {...}` for each function, then the other
//     variables' assignments and declarations in source order.
func (s *Session) runDecls(ctx context.Context, pc *parsedCell, info *types.Info, rw *rewriter) error {
	qual := func(p *types.Package) string {
		if p.Path() == "main" {
			return ""
		}
		return p.Name()
	}
	typeOf := func(id *ast.Ident) (ast.Expr, bool) {
		obj := info.Defs[id]
		if obj == nil || obj.Type() == nil || !validType(obj.Type()) {
			return nil, false
		}
		e, err := parser.ParseExpr(types.TypeString(obj.Type(), qual))
		if err != nil {
			return nil, false
		}
		setPos(e, id.NamePos)
		return e, true
	}
	funcs := map[string]bool{}
	for _, d := range pc.decls.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && plainFunc(fd) {
			funcs[fd.Name.Name] = true
		}
	}
	declStmt := func(pos token.Pos, spec *ast.ValueSpec) ast.Stmt {
		return &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{spec}}}
	}
	var file1, file3 []ast.Decl
	var st2, st4a, st4b, st4c []ast.Stmt
	for _, d := range pc.decls.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !plainFunc(d) {
				file3 = append(file3, d)
				continue
			}
			// Keep the variable of an earlier definition with the same
			// signature, so that its callers see the new body.
			if old, ok := s.user[d.Name.Name]; !ok || old.tok != token.FUNC || old.method || old.sigKey != sigKey(pc, d) || !s.isFuncGlobal(d.Name.Name) {
				st2 = append(st2, declStmt(d.Pos(), &ast.ValueSpec{Names: []*ast.Ident{d.Name}, Type: d.Type}))
			}
			name := ast.NewIdent(d.Name.Name)
			name.NamePos = d.Name.NamePos
			st4b = append(st4b, &ast.AssignStmt{Lhs: []ast.Expr{name}, Tok: token.ASSIGN, TokPos: d.Pos(), Rhs: []ast.Expr{&ast.FuncLit{Type: d.Type, Body: d.Body}}})
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				file1 = append(file1, d)
				continue
			}
			for _, sp := range d.Specs {
				vs := sp.(*ast.ValueSpec)
				typs := make([]ast.Expr, len(vs.Names))
				known := true
				for k, n := range vs.Names {
					if vs.Type != nil {
						typs[k] = vs.Type
					} else if typs[k], known = typeOf(n); !known {
						break
					}
				}
				if !known {
					if refers(vs, funcs) {
						st4c = append(st4c, declStmt(d.Pos(), vs))
					} else {
						st4a = append(st4a, declStmt(d.Pos(), vs))
					}
					continue
				}
				for k, n := range vs.Names {
					st2 = append(st2, declStmt(d.Pos(), &ast.ValueSpec{Names: []*ast.Ident{n}, Type: typs[k]}))
				}
				if len(vs.Values) > 0 {
					lhs := make([]ast.Expr, len(vs.Names))
					for k, n := range vs.Names {
						id := ast.NewIdent(n.Name)
						id.NamePos = n.NamePos
						lhs[k] = id
					}
					st4c = append(st4c, &ast.AssignStmt{Lhs: lhs, Tok: token.ASSIGN, TokPos: vs.Pos(), Rhs: vs.Values})
				}
			}
		}
	}
	lbrace := pc.body.Lbrace
	steps := []ast.Node{}
	if len(file1) > 0 {
		steps = append(steps, &ast.File{Name: pc.decls.Name, Package: pc.decls.Package, Decls: file1})
	}
	if len(st2) > 0 {
		steps = append(steps, &ast.BlockStmt{Lbrace: lbrace, List: st2})
	}
	if len(file3) > 0 {
		steps = append(steps, &ast.File{Name: pc.decls.Name, Package: pc.decls.Package, Decls: file3})
	}
	if st4 := append(append(st4a, st4b...), st4c...); len(st4) > 0 {
		steps = append(steps, &ast.BlockStmt{Lbrace: lbrace, List: st4})
	}
	for _, n := range steps {
		if err := s.compileRun(ctx, n, rw); err != nil {
			return err
		}
	}
	return nil
}

// sigKey is the text of a function's parameters and results, normalised.
func sigKey(pc *parsedCell, fd *ast.FuncDecl) string {
	start := fd.Type.Params.Pos()
	end := fd.Type.End()
	tf := pc.fset.File(start)
	return normalize(pc.declSrc[tf.Offset(start):tf.Offset(end)])
}

func (s *Session) isFuncGlobal(name string) bool {
	v, ok := s.i.Globals()[name]
	return ok && v.IsValid() && v.Kind() == reflect.Func
}

func plainFunc(fd *ast.FuncDecl) bool {
	return fd.Recv == nil && fd.Body != nil && fd.Name.Name != "init" && fd.Name.Name != "_" &&
		(fd.Type.TypeParams == nil || len(fd.Type.TypeParams.List) == 0)
}

// validType reports whether t can be written in a cell: no invalid parts,
// no types of packages the type checker did not see.
func validType(t types.Type) bool {
	s := types.TypeString(t, nil)
	return !strings.Contains(s, "invalid type") && !strings.Contains(s, "untyped")
}

// refers reports whether n mentions one of names.
func refers(n ast.Node, names map[string]bool) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok && names[id.Name] {
			found = true
		}
		return !found
	})
	return found
}

// setPos gives the identifiers of a synthesised expression a position.
func setPos(e ast.Expr, pos token.Pos) {
	ast.Inspect(e, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok {
			id.NamePos = pos
		}
		return true
	})
}

// compile compiles a file or a block; on an internal panic of yaegi it
// returns an *Error naming the construct when it can.
func (s *Session) compile(n ast.Node, rw *rewriter) (p *yaegi.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			p = nil
			if fmt.Sprint(r) == "nil type" && rw != nil && rw.unknown.IsValid() {
				pos := s.i.FileSet().Position(rw.unknown)
				text := "range over an int or a function whose type the session could not infer is not supported by the interpreter (write for i := 0; i < n; i++)"
				err = &Error{Name: nameUnsupported, Value: text, Traceback: []string{cellPos(pos.Line, pos.Column) + ": " + text}}
				return
			}
			err = internalError(r)
		}
	}()
	p, err = s.i.CompileAST(n)
	if err != nil {
		e := compileError(err)
		if rw != nil && len(rw.undefined) > 0 && e.Name == nameCompile && !strings.Contains(e.Value, "undefined") {
			u := rw.undefined[0]
			pos := u.Fset.Position(u.Pos)
			line := cellPos(pos.Line, pos.Column) + ": " + u.Msg
			return nil, &Error{Name: nameCompile, Value: u.Msg, Traceback: []string{line}}
		}
		return nil, e
	}
	return p, nil
}

func (s *Session) compileRun(ctx context.Context, n ast.Node, rw *rewriter) error {
	p, err := s.compile(n, rw)
	if err != nil {
		return err
	}
	_, err = s.run(ctx, p)
	return err
}

// run executes p, cancelled by ctx. On cancellation it waits (up to
// stopWait) for yaegi's goroutine to stop, so that the next cell does not
// race with it.
func (s *Session) run(ctx context.Context, p *yaegi.Program) (reflect.Value, error) {
	type outcome struct {
		v   reflect.Value
		err error
	}
	gid := make(chan uint64, 1)
	done := make(chan outcome, 1)
	s.errw.take()
	go func() {
		gid <- goroutineID()
		v, err := s.i.ExecuteWithContext(ctx, p)
		done <- outcome{v, err}
	}()
	id := <-gid
	o := <-done
	if o.err == nil {
		return o.v, nil
	}
	if ctx.Err() != nil && errors.Is(o.err, ctx.Err()) {
		stopped := waitStopped(id, stopWait)
		e := &Error{Name: nameInterrupted, Value: "the cell was interrupted"}
		if !stopped {
			e.Value += " (it is still running in a compiled call and will stop when that returns)"
		}
		e.Traceback = []string{e.Name + ": " + e.Value}
		return reflect.Value{}, e
	}
	var pv yaegi.Panic
	if errors.As(o.err, &pv) {
		return reflect.Value{}, runtimeError(pv, s.errw.take())
	}
	return reflect.Value{}, compileError(o.err)
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
	text := fmt.Sprintf("the interpreter cannot run this cell (internal error: %v)", r)
	return &Error{Name: nameUnsupported, Value: mapPositions(text), Traceback: []string{nameUnsupported + ": " + mapPositions(text)}}
}

func unsupported(err error) *Error {
	var u *unsupportedError
	if errors.As(err, &u) {
		return &Error{Name: nameUnsupported, Value: u.msg, Traceback: []string{u.msg}}
	}
	return &Error{Name: nameUnsupported, Value: err.Error(), Traceback: []string{err.Error()}}
}

// collect makes the records of a cell's declarations and imports.
func (s *Session) collect(pc *parsedCell) ([]*declRec, []importRec) {
	fset := s.i.FileSet()
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
				imps = append(imps, importRec{importName(is), p})
			}
			continue
		}
		pos := fset.Position(d.Pos())
		r := &declRec{names: declNames(d), cell: pc.n, text: text(d.Pos(), d.End())}
		r.src = lineDirective(pos.Line) + strings.Repeat(" ", max(pos.Column-1, 0)) + r.text + "\n"
		switch d := d.(type) {
		case *ast.FuncDecl:
			r.tok, r.method = token.FUNC, d.Recv != nil
			r.sig = r.text
			if d.Body != nil {
				r.sig = strings.TrimSpace(text(d.Pos(), d.Body.Lbrace))
			}
			r.doc = d.Doc.Text()
			r.sigKey = sigKey(pc, d)
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
	old := s.i
	oldGlobals := old.Globals()
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
		s.i, s.imports, s.records, s.user = old, saved.imports, saved.records, saved.user
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
		if !carriable(v, 0) {
			dropped = append(dropped, n)
			continue
		}
		cv := reflect.New(v.Type()).Elem()
		cv.Set(v)
		key := "V" + strconv.Itoa(len(carry))
		carry[key] = cv
		fmt.Fprintf(&src, "var %s = __gnnlab_carry.%s\n", n, key)
	}
	if err := ni.Use(yaegi.Exports{"gnnlabcarry/gnnlabcarry": carry}); err != nil {
		restore()
		return fmt.Errorf("interp: rebuild: %w", err)
	}
	for _, r := range s.records {
		if !r.dead {
			src.WriteString(r.src)
		}
	}
	s.i = ni
	f, err := parser.ParseFile(ni.FileSet(), cellFile, src.String(), parser.ParseComments)
	if err != nil {
		restore()
		return parseError(ni.FileSet(), err)
	}
	pc := &parsedCell{decls: f, body: &ast.BlockStmt{}}
	info, _ := typecheck(ni.FileSet(), pc, nil, nil)
	rw := &rewriter{info: info}
	if err := rw.rewrite(f); err != nil {
		restore()
		return unsupported(err)
	}
	funcsToVars(f)
	if err := s.compileRun(ctx, f, rw); err != nil {
		restore()
		if e, ok := err.(*Error); ok {
			e.Value = "redefining a type replays the earlier declarations in a fresh interpreter, and that failed: " + e.Value
			return e
		}
		return err
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
	newGlobals := ni.Globals()
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
