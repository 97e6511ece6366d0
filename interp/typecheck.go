package interp

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/declname"
	"github.com/gnnlab/gnnlab/interp/internal/inspect"
	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
	"github.com/gnnlab/gnnlab/interp/internal/symtypes"
)

// checkEnv is what the type checker is told about the session.
type checkEnv struct {
	globals map[string]reflect.Value
	earlier []*declRec  // declarations of earlier cells
	imports []importRec // imports of earlier cells
	// known reports whether the session knows name (a global, a
	// declaration or an import), so that go/types' "undefined: name" is
	// kept only for names that are undefined indeed.
	known func(name string) bool
}

// compiledType reports whether t holds no type that yaegi made for an
// interpreted type (an unnamed struct or interface): go/types is told the
// types of globals only when they say what the cell sees.
func compiledType(t reflect.Type, depth int) bool {
	if depth > 8 {
		return false
	}
	if t.Name() != "" {
		return true
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Interface:
		return t.Kind() == reflect.Interface && t.NumMethod() == 0
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
		return compiledType(t.Elem(), depth+1)
	case reflect.Map:
		return compiledType(t.Key(), depth+1) && compiledType(t.Elem(), depth+1)
	case reflect.Func:
		for i := 0; i < t.NumIn(); i++ {
			if !compiledType(t.In(i), depth+1) {
				return false
			}
		}
		for i := 0; i < t.NumOut(); i++ {
			if !compiledType(t.Out(i), depth+1) {
				return false
			}
		}
	}
	return true
}

func inGlobals(g map[string]reflect.Value, name string) bool {
	_, ok := g[name]
	return ok
}

// qualifiers returns the identifiers that the nodes use as X in X.Sel:
// the imports a file needs, for go/types would spend time on an
// "imported and not used" error for each of the others.
func qualifiers(nodes ...ast.Node) map[string]bool {
	q := map[string]bool{}
	for _, n := range nodes {
		ast.Inspect(n, func(x ast.Node) bool {
			if sel, ok := x.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok {
					q[id.Name] = true
				}
			}
			return true
		})
	}
	return q
}

// importDecl declares to go/types the imports named in used, except
// those in skip; nil when there are none.
func importDecl(imps []importRec, used, skip map[string]bool) *ast.GenDecl {
	d := &ast.GenDecl{Tok: token.IMPORT}
	for _, im := range imps {
		if (!used[im.name] && im.name != ".") || skip[im.name] {
			continue
		}
		d.Specs = append(d.Specs, &ast.ImportSpec{
			Name: ast.NewIdent(im.name),
			Path: &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(im.path)},
		})
	}
	if len(d.Specs) == 0 {
		return nil
	}
	return d
}

// typecheck runs go/types over the cell with the session's imports and
// globals declared, ignoring every error, and returns what it learnt and
// the names that neither go/types nor the session know.
func typecheck(fset *token.FileSet, pc *parsedCell, env checkEnv) (info *types.Info, undefined []types.Error) {
	declared := map[string]bool{}
	for _, d := range pc.decls.Decls {
		for _, n := range declname.Of(d) {
			declared[n] = true
		}
	}
	cellImports := map[string]bool{}
	for _, is := range pc.decls.Imports {
		cellImports[importName(is)] = true
	}
	pkg := types.NewPackage("main", "main")
	used := identNames(pc.decls, pc.body)
	byRecord := recordNames(env.earlier, declared, used)
	for name, v := range env.globals {
		if declared[name] || byRecord[name] || strings.HasPrefix(name, helperPrefix) || !v.IsValid() || !compiledType(v.Type(), 0) {
			continue
		}
		if t, ok := symtypes.TypeOf(v.Type()); ok {
			pkg.Scope().Insert(types.NewVar(0, pkg, name, t))
		}
	}
	// Types, constants and methods (without their bodies, which need not
	// be checked again) of earlier cells help to infer more.
	var gs strings.Builder
	gs.WriteString("package main\n")
	for _, rec := range env.earlier {
		// Functions are given by their signatures (recordNames), which
		// also let go/types infer type arguments of calls of generic
		// ones in later cells.
		fn := sigRecord(rec, used)
		if rec.dead || (rec.tok != token.TYPE && rec.tok != token.CONST && !rec.method && !fn) {
			continue
		}
		clash := false
		for _, n := range rec.names {
			clash = clash || declared[n] || declared[n[:strings.IndexByte(n+".", '.')]]
		}
		switch {
		case clash:
		case rec.method, fn:
			gs.WriteString(rec.sig + "\n")
		default:
			gs.WriteString(rec.text + "\n")
		}
	}
	files := []*ast.File{}
	if gf, err := parser.ParseFile(fset, "", gs.String(), 0); err == nil {
		if d := importDecl(env.imports, qualifiers(gf), nil); d != nil {
			gf.Decls = append([]ast.Decl{d}, gf.Decls...)
		}
		files = append(files, gf)
	}
	var decls []ast.Decl
	if d := importDecl(env.imports, qualifiers(pc.decls, pc.body), cellImports); d != nil {
		decls = append(decls, d)
	}
	decls = append(decls, pc.decls.Decls...)
	decls = append(decls, &ast.FuncDecl{
		Name: ast.NewIdent(helperPrefix + "cell"),
		Type: &ast.FuncType{Params: &ast.FieldList{}},
		Body: pc.body,
	})
	files = append(files, &ast.File{Name: ast.NewIdent("main"), Decls: decls, Package: pc.decls.Package})
	info = &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{},
		Uses:  map[*ast.Ident]types.Object{},
		Defs:  map[*ast.Ident]types.Object{},
		// Selections tell method values from fields (defer.go).
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		// Instances give generic calls their type arguments
		// (internal/rewrite/geninstance.go).
		Instances: map[*ast.Ident]types.Instance{},
	}
	cellFiles := map[*token.File]bool{fset.File(pc.decls.Pos()): true, fset.File(pc.body.Pos()): true}
	conf := types.Config{Importer: rewrite.Importer, Error: func(err error) {
		// Keep "undefined: x" of names in the cell that the session does
		// not know either: yaegi reports some of them obscurely.
		var te types.Error
		if !errors.As(err, &te) || !strings.HasPrefix(te.Msg, "undefined: ") || !cellFiles[fset.File(te.Pos)] {
			return
		}
		name := strings.TrimPrefix(te.Msg, "undefined: ")
		if strings.Contains(name, ".") || inGlobals(env.globals, name) || (env.known != nil && env.known(name)) {
			return
		}
		undefined = append(undefined, te)
	}}
	func() {
		// go/types is robust, but a panic here must not fail the cell.
		defer func() { _ = recover() }()
		_ = types.NewChecker(&conf, fset, pkg, info).Files(files)
	}()
	return info, undefined
}

// sigRecord reports whether rec declares a function (not a method) whose
// signature the type checker is given: a generic one, or one that the
// cell names (used), so that a session of many functions does not check
// all their signatures for every cell.
func sigRecord(rec *declRec, used map[string]bool) bool {
	if rec.tok != token.FUNC || rec.method || len(rec.names) != 1 {
		return false
	}
	return used[rec.names[0]] || strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rec.sig), "func "+rec.names[0])), "[")
}

// identNames returns the names of the identifiers in nodes.
func identNames(nodes ...ast.Node) map[string]bool {
	names := map[string]bool{}
	for _, n := range nodes {
		ast.Inspect(n, func(x ast.Node) bool {
			if id, ok := x.(*ast.Ident); ok {
				names[id.Name] = true
			}
			return true
		})
	}
	return names
}

// recordNames are the names that typecheck declares from the earlier
// cells' declarations (constants, and functions of sigRecord, not
// redefined in this cell), not from the interpreter's globals: a global's
// reflect type lost the named non-struct types of the session (const
// Hearts Suit was an int, func two() (Suit, error) returned an int).
func recordNames(earlier []*declRec, declared, used map[string]bool) map[string]bool {
	names := map[string]bool{}
	for _, rec := range earlier {
		if rec.dead || !(rec.tok == token.CONST || sigRecord(rec, used)) {
			continue
		}
		clash := false
		for _, n := range rec.names {
			clash = clash || declared[n]
		}
		if !clash {
			for _, n := range rec.names {
				names[n] = true
			}
		}
	}
	return names
}

// unexportedUse finds the first selector in nodes that names an
// unexported field or method of a compiled package's type (ds.features):
// Go refuses it at compile time, while yaegi accepts it and panics when it
// runs ("reflect.Value.Interface: cannot return value obtained from
// unexported field or method"). It returns that compile error, or nil.
func unexportedUse(fset *token.FileSet, info *types.Info, nodes ...ast.Node) *Error {
	if info == nil {
		return nil
	}
	var found *Error
	for _, n := range nodes {
		ast.Inspect(n, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if found != nil || !ok || sel.Sel.IsExported() || info.Selections[sel] != nil {
				return found == nil
			}
			tv, ok := info.Types[sel.X]
			if !ok || tv.Type == nil || !tv.IsValue() {
				return true
			}
			pkg := compiledPkg(tv.Type)
			if pkg == nil {
				return true
			}
			obj, _, _ := types.LookupFieldOrMethod(tv.Type, true, pkg, sel.Sel.Name)
			if obj == nil {
				return true
			}
			kind := "field"
			if _, isFunc := obj.(*types.Func); isFunc {
				kind = "method"
			}
			pos := fset.Position(sel.Sel.Pos())
			msg := types.ExprString(sel) + " undefined (cannot refer to unexported " + kind + " " + sel.Sel.Name +
				" of " + types.TypeString(tv.Type, func(p *types.Package) string { return p.Name() }) + ")"
			found = &Error{Name: nameCompile, Value: msg, Traceback: []string{cellPos(pos.Line, pos.Column) + ": " + msg}}
			return false
		})
	}
	return found
}

// nonFunctionCall finds the first call in nodes whose callee go/types
// knows to be a value that is not a function (0(), x() with x an int): Go
// refuses it at compile time, while yaegi accepts it and panics when it
// runs ("reflect: call of reflect.Value.Call on int Value"). It returns
// that compile error, in the compiler's words, or nil.
func nonFunctionCall(fset *token.FileSet, info *types.Info, nodes ...ast.Node) *Error {
	if info == nil {
		return nil
	}
	var found *Error
	for _, n := range nodes {
		ast.Inspect(n, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if found != nil || !ok {
				return found == nil
			}
			tv, ok := info.Types[call.Fun]
			if !ok || tv.Type == nil || tv.IsType() || tv.IsBuiltin() || !tv.IsValue() {
				return true
			}
			switch u := tv.Type.Underlying().(type) {
			case *types.Signature, *types.Interface:
				return true // a function, or a type parameter's constraint
			case *types.Basic:
				if u.Kind() == types.Invalid {
					return true
				}
			}
			qual := func(p *types.Package) string { return p.Name() }
			what := "value of type " + types.TypeString(tv.Type, qual)
			switch {
			case tv.Value != nil && isUntyped(tv.Type):
				what = types.TypeString(tv.Type, qual) + " constant"
			case tv.Value != nil:
				what = "constant " + tv.Value.String() + " of type " + types.TypeString(tv.Type, qual)
			default:
				if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
					if _, isVar := info.Uses[id].(*types.Var); isVar {
						what = "variable of type " + types.TypeString(tv.Type, qual)
					}
				}
			}
			pos := fset.Position(call.Fun.Pos())
			msg := "invalid operation: cannot call " + types.ExprString(call.Fun) + " (" + what + "): " + types.TypeString(tv.Type, qual) + " is not a function"
			found = &Error{Name: nameCompile, Value: msg, Traceback: []string{cellPos(pos.Line, pos.Column) + ": " + msg}}
			return false
		})
	}
	return found
}

// isUntyped reports whether t is an untyped basic type (an untyped
// constant's).
func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}

// compiledPkg returns the package of a named type (or pointer to one)
// that is not the session's own.
func compiledPkg(t types.Type) *types.Package {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() == "main" {
		return nil
	}
	return n.Obj().Pkg()
}

// Imports that the interpreter cannot satisfy.
//
// yaegi compiles a cell's declarations in order, so a cell whose import
// failed had already declared what came before the import (types without
// a reflect type, a package name half imported): later cells failed with
// "fmt/_.go redeclared in this block" or "internal error: nil reflect
// type". The session checks every import of a cell against the symbol
// tables first and refuses the whole cell before yaegi sees any of it.

// unavailable explains the packages that a cell may not import, for
// those where there is something better to say than "not available".
var unavailable = map[string]string{
	"embed":        `package "embed" is not available in a cell: //go:embed embeds the files of a package's folder when it is compiled, and a cell has none; read the files when the cell runs, with os.ReadFile, or os.DirFS(dir) for an fs.FS`,
	"unsafe":       `package "unsafe" is not available in the interpreter (cells have no unsafe pointers)`,
	"C":            `cgo (import "C") is not available in the interpreter`,
	"syscall":      `package "syscall" is not available in the interpreter: cells make no system calls of their own; use os, os/exec or os/signal`,
	"plugin":       `package "plugin" is not available in cells: the session itself loads what cells declare as plugins (the compiled tier, %compiled); %go get MODULE adds a module's packages`,
	"runtime/cgo":  `package "runtime/cgo" is not available: the interpreter runs no cgo`,
	"runtime/race": `package "runtime/race" is not available: it exists only in a binary built with -race`,
}

// checkImports returns a compile error naming the first import of pc
// that no symbol table holds, with its cell position, or nil.
func (s *Session) checkImports(pc *parsedCell) *Error {
	for _, d := range pc.decls.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for _, sp := range gd.Specs {
			is := sp.(*ast.ImportSpec)
			p, err := strconv.Unquote(is.Path.Value)
			if err != nil || rewrite.IsIterImport(is) {
				continue
			}
			if _, ok := inspect.Packages().ByPath[p]; ok {
				continue
			}
			if symtypes.IsPlugin(p) { // compiled.go
				continue
			}
			mp, isMod := s.modPackage(p) // modules.go
			if isMod && mp.why == "" {
				s.keepSlots = true // release.go
				continue
			}
			msg, ok := unavailable[p]
			switch {
			case isMod:
				msg = fmt.Sprintf("package %q (module %s) cannot be used in a cell: %s", p, mp.module, mp.why)
			case !ok:
				msg = notAvailable(p)
			}
			pos := s.fset.Position(is.Path.Pos())
			return &Error{Name: nameCompile, Value: msg, Traceback: []string{cellPos(pos.Line, pos.Column) + ": " + msg}}
		}
	}
	return nil
}

// checkReturn returns a compile error for a return among the cell's own
// statements (not inside a function literal): they run at the top level,
// where yaegi's compiler panicked on it (the cell "return" gave an
// internal error; FuzzCells found it).
func (s *Session) checkReturn(pc *parsedCell) *Error {
	if pc.body == nil {
		return nil
	}
	var ret *ast.ReturnStmt
	ast.Inspect(pc.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if ret == nil {
				ret = n
			}
		}
		return ret == nil
	})
	if ret == nil {
		return nil
	}
	const msg = "return outside a function: a cell's statements run at the top level, where there is nothing to return from (declare a func and call it, or end the cell with if/else)"
	pos := s.fset.Position(ret.Pos())
	return &Error{Name: nameCompile, Value: msg, Traceback: []string{cellPos(pos.Line, pos.Column) + ": " + msg}}
}

// notAvailable is the message for an import path that no table holds.
func notAvailable(path string) string {
	if isStdKey(path) {
		return fmt.Sprintf("package %q is not in the standard library of the interpreter (%s): it is internal, or not a standard package", path, runtime.Version())
	}
	return fmt.Sprintf("package %q is not available: cells have the standard library and the gnnlab packages, and the modules that %%go get MODULE[@VERSION] adds", path)
}

// Automatic imports.
//
// A cell that uses a package it did not import (fmt.Println without
// import "fmt"), as goimports would add it, gets the import: a name that
// neither the cell nor the session defines, used as X in X.Sel, is looked
// up among the standard library and gnnlab packages of the symbol tables
// by package name (math/rand/v2 is rand); the package must have every
// name the cell selects from it (its table's, or the generic ones the
// session provides: rand.N, slices.Sorted), and of several such packages the one with the shortest path wins
// (math/rand over math/rand/v2). The session imports it for good, as an
// import in the cell would, and writes a line on standard error saying so.

// packagesNamed returns the import paths of the preloaded packages with
// name, shortest first.
func packagesNamed(name string) []string {
	var ps []string
	for p := range inspect.Packages().ByPath {
		if pathName(p) == name && !strings.Contains(p, "internal") {
			ps = append(ps, p)
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		if len(ps[i]) != len(ps[j]) {
			return len(ps[i]) < len(ps[j])
		}
		return ps[i] < ps[j]
	})
	return ps
}

// providedGeneric reports whether the session provides the generic
// function or type name of package p (internal/rewrite/genericstd.go), which no symbol
// table holds.
func providedGeneric(p, name string) bool {
	t := rewrite.GenericPackage(p)
	return t != nil && t.Scope().Lookup(name) != nil
}

// autoImport imports the packages that the cell uses without importing;
// it reports whether it imported any.
func (s *Session) autoImport(ctx context.Context, pc *parsedCell, undef []types.Error) (bool, error) {
	if len(undef) == 0 {
		return false, nil
	}
	missing := map[string]bool{}
	for _, u := range undef {
		missing[strings.TrimPrefix(u.Msg, "undefined: ")] = true
	}
	sels := map[string]map[string]bool{}
	for _, n := range []ast.Node{pc.decls, pc.body} {
		ast.Inspect(n, func(x ast.Node) bool {
			if sel, ok := x.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && missing[id.Name] {
					if sels[id.Name] == nil {
						sels[id.Name] = map[string]bool{}
					}
					sels[id.Name][sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	names := make([]string, 0, len(sels))
	for n := range sels {
		names = append(names, n)
	}
	sort.Strings(names)
	var imps []importRec
	var src strings.Builder
	for _, name := range names {
	candidates:
		for _, p := range packagesNamed(name) {
			exp := inspect.Packages().ByPath[p]
			for sel := range sels[name] {
				if _, ok := exp[sel]; !ok && !providedGeneric(p, sel) {
					continue candidates
				}
			}
			imps = append(imps, importRec{name, p})
			fmt.Fprintf(&src, "import %q\n", p)
			break
		}
	}
	if len(imps) == 0 {
		return false, nil
	}
	if _, err := s.eval(ctx, "package main\n"+src.String(), nil); err != nil {
		return false, err
	}
	s.commit(nil, imps)
	paths := make([]string, len(imps))
	for k, im := range imps {
		paths[k] = fmt.Sprintf("%q", im.path)
	}
	fmt.Fprintf(s.errw, "interp: added import %s\n", strings.Join(paths, ", "))
	return true, nil
}
