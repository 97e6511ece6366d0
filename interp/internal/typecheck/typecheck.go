package typecheck

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"iter"
	"reflect"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/declname"
	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
	"github.com/gnnlab/gnnlab/interp/internal/symtypes"
)

// Record is what Cell is told of a top-level declaration of an earlier
// cell (the session's record of it).
type Record struct {
	Names  []string    // defined names; methods as "Type.Method" (declname.Of)
	Tok    token.Token // token.TYPE, VAR, CONST or FUNC
	Method bool
	Dead   bool   // every name redefined by a later cell
	Sig    string // the declaration without a body
	Text   string // the declaration as written
}

// Import is an import of an earlier cell: the name it binds and the path.
type Import struct{ Name, Path string }

// Env is what the type checker is told about the session.
type Env struct {
	Globals map[string]reflect.Value
	Earlier iter.Seq[Record] // declarations of earlier cells, in order; nil for none
	Imports []Import         // imports of earlier cells
	// Known reports whether the session knows name (a global, a
	// declaration or an import), so that go/types' "undefined: name" is
	// kept only for names that are undefined indeed.
	Known func(name string) bool
	// Errors, when set, is told the other errors go/types finds in the
	// cell: not "undefined: name", nor a variable or import declared and
	// not used, nor an unused value, which a cell may hold.
	// They are the compiler's words (Refused picks those the session
	// reports before the cell runs).
	Errors func(types.Error)
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
func importDecl(imps []Import, used, skip map[string]bool) *ast.GenDecl {
	d := &ast.GenDecl{Tok: token.IMPORT}
	for _, im := range imps {
		if (!used[im.Name] && im.Name != ".") || skip[im.Name] {
			continue
		}
		d.Specs = append(d.Specs, &ast.ImportSpec{
			Name: ast.NewIdent(im.Name),
			Path: &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(im.Path)},
		})
	}
	if len(d.Specs) == 0 {
		return nil
	}
	return d
}

// Cell runs go/types over a cell, its imports and declarations (decls)
// and its statements (body), with the session's imports and globals
// declared, ignoring every error, and returns what it learnt and the
// names that neither go/types nor the session know.
func Cell(fset *token.FileSet, decls *ast.File, body *ast.BlockStmt, env Env) (info *types.Info, undefined []types.Error) {
	declared := map[string]bool{}
	for _, d := range decls.Decls {
		for _, n := range declname.Of(d) {
			declared[n] = true
		}
	}
	cellImports := map[string]bool{}
	for _, is := range decls.Imports {
		cellImports[declname.Import(is)] = true
	}
	pkg := types.NewPackage("main", "main")
	used := identNames(decls, body)
	byRecord := recordNames(env.Earlier, declared, used)
	for name, v := range env.Globals {
		if declared[name] || byRecord[name] || strings.HasPrefix(name, rewrite.Prefix) || !v.IsValid() || !compiledType(v.Type(), 0) {
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
	for rec := range records(env.Earlier) {
		// Functions are given by their signatures (recordNames), which
		// also let go/types infer type arguments of calls of generic
		// ones in later cells.
		fn := sigRecord(rec, used)
		if rec.Dead || (rec.Tok != token.TYPE && rec.Tok != token.CONST && !rec.Method && !fn) {
			continue
		}
		clash := false
		for _, n := range rec.Names {
			clash = clash || declared[n] || declared[n[:strings.IndexByte(n+".", '.')]]
		}
		switch {
		case clash:
		case rec.Method, fn:
			gs.WriteString(rec.Sig + "\n")
		default:
			gs.WriteString(rec.Text + "\n")
		}
	}
	files := []*ast.File{}
	if gf, err := parser.ParseFile(fset, "", gs.String(), 0); err == nil {
		if d := importDecl(env.Imports, qualifiers(gf), nil); d != nil {
			gf.Decls = append([]ast.Decl{d}, gf.Decls...)
		}
		files = append(files, gf)
	}
	var all []ast.Decl
	if d := importDecl(env.Imports, qualifiers(decls, body), cellImports); d != nil {
		all = append(all, d)
	}
	all = append(all, decls.Decls...)
	all = append(all, &ast.FuncDecl{
		Name: ast.NewIdent(rewrite.Prefix + "cell"),
		Type: &ast.FuncType{Params: &ast.FieldList{}},
		Body: body,
	})
	files = append(files, &ast.File{Name: ast.NewIdent("main"), Decls: all, Package: decls.Package})
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
	cellFiles := map[*token.File]bool{fset.File(decls.Pos()): true, fset.File(body.Pos()): true}
	var qualified []types.Error // "undefined: pkg.Name"
	conf := types.Config{Importer: rewrite.Importer, Error: func(err error) {
		// Keep "undefined: x" of names in the cell that the session does
		// not know either: yaegi reports some of them obscurely.
		var te types.Error
		if !errors.As(err, &te) || !cellFiles[fset.File(te.Pos)] {
			return
		}
		if !strings.HasPrefix(te.Msg, "undefined: ") {
			if env.Errors != nil && !allowed(te) {
				env.Errors(te)
			}
			return
		}
		name := strings.TrimPrefix(te.Msg, "undefined: ")
		if strings.Contains(name, ".") {
			qualified = append(qualified, te)
			return
		}
		if inGlobals(env.Globals, name) || (env.Known != nil && env.Known(name)) {
			return
		}
		undefined = append(undefined, te)
	}}
	func() {
		// go/types is robust, but a panic here must not fail the cell.
		defer func() { _ = recover() }()
		_ = types.NewChecker(&conf, fset, pkg, info).Files(files)
	}()
	if env.Errors != nil {
		// "undefined: pkg.Name" is Go's error where the importer knows
		// pkg; a package it lacks (a module's) is an empty stand-in,
		// whose every name is undefined.
		for _, te := range qualified {
			if knownPackage(info, te.Pos) {
				env.Errors(te)
			}
		}
	}
	return info, undefined
}

// allowed reports whether te is an error that Go reports and a cell may
// hold: a variable or import declared and not used (soft errors of
// go/types, like a few that Go does refuse: func main with arguments,
// goto over a declaration, an unused label), or an unused value.
func allowed(te types.Error) bool {
	return strings.HasSuffix(te.Msg, " is not used") ||
		(te.Soft && !strings.HasPrefix(te.Msg, "label ") && (strings.HasSuffix(te.Msg, " and not used") || strings.HasPrefix(te.Msg, "declared and not used")))
}

// sigRecord reports whether rec declares a function (not a method) whose
// signature the type checker is given: a generic one, or one that the
// cell names (used), so that a session of many functions does not check
// all their signatures for every cell.
func sigRecord(rec Record, used map[string]bool) bool {
	if rec.Tok != token.FUNC || rec.Method || len(rec.Names) != 1 {
		return false
	}
	return used[rec.Names[0]] || strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rec.Sig), "func "+rec.Names[0])), "[")
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

// records is earlier, or no records for nil.
func records(earlier iter.Seq[Record]) iter.Seq[Record] {
	if earlier == nil {
		return func(func(Record) bool) {}
	}
	return earlier
}

// recordNames are the names that Cell declares from the earlier
// cells' declarations (constants, and functions of sigRecord, not
// redefined in this cell), not from the interpreter's globals: a global's
// reflect type lost the named non-struct types of the session (const
// Hearts Suit was an int, func two() (Suit, error) returned an int).
func recordNames(earlier iter.Seq[Record], declared, used map[string]bool) map[string]bool {
	names := map[string]bool{}
	for rec := range records(earlier) {
		if rec.Dead || !(rec.Tok == token.CONST || sigRecord(rec, used)) {
			continue
		}
		clash := false
		for _, n := range rec.Names {
			clash = clash || declared[n]
		}
		if !clash {
			for _, n := range rec.Names {
				names[n] = true
			}
		}
	}
	return names
}

// UnexportedUse finds the first selector in nodes that names an
// unexported field or method of a compiled package's type (ds.features):
// Go refuses it at compile time, while yaegi accepts it and panics when it
// runs ("reflect.Value.Interface: cannot return value obtained from
// unexported field or method"). It returns that compile error's position
// and message, in the compiler's words, or "" for none.
func UnexportedUse(info *types.Info, nodes ...ast.Node) (pos token.Pos, msg string) {
	return first(info, nodes, func(n ast.Node) (token.Pos, string) {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || sel.Sel.IsExported() || info.Selections[sel] != nil {
			return token.NoPos, ""
		}
		tv, ok := info.Types[sel.X]
		if !ok || tv.Type == nil || !tv.IsValue() {
			return token.NoPos, ""
		}
		pkg := compiledPkg(tv.Type)
		if pkg == nil {
			return token.NoPos, ""
		}
		obj, _, _ := types.LookupFieldOrMethod(tv.Type, true, pkg, sel.Sel.Name)
		if obj == nil {
			return token.NoPos, ""
		}
		kind := "field"
		if _, isFunc := obj.(*types.Func); isFunc {
			kind = "method"
		}
		return sel.Sel.Pos(), types.ExprString(sel) + " undefined (cannot refer to unexported " + kind + " " + sel.Sel.Name +
			" of " + types.TypeString(tv.Type, func(p *types.Package) string { return p.Name() }) + ")"
	})
}

// first returns the first finding of check in nodes, walked in order:
// its position and message, or "" for none (and for a nil info).
func first(info *types.Info, nodes []ast.Node, check func(ast.Node) (token.Pos, string)) (pos token.Pos, msg string) {
	if info == nil {
		return token.NoPos, ""
	}
	for _, n := range nodes {
		ast.Inspect(n, func(n ast.Node) bool {
			if msg == "" && n != nil {
				pos, msg = check(n)
			}
			return msg == ""
		})
		if msg != "" {
			break
		}
	}
	return pos, msg
}

// NonFunctionCall finds the first call in nodes whose callee go/types
// knows to be a value that is not a function (0(), x() with x an int, a
// call of several results or of none, as in f()()): Go
// refuses it at compile time, while yaegi accepts it and panics when it
// runs ("reflect: call of reflect.Value.Call on int Value"). It returns
// that compile error's position and message, in the compiler's words, or
// "" for none.
func NonFunctionCall(info *types.Info, nodes ...ast.Node) (pos token.Pos, msg string) {
	return first(info, nodes, func(n ast.Node) (token.Pos, string) {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return token.NoPos, ""
		}
		tv, ok := info.Types[call.Fun]
		if ok && tv.IsVoid() {
			return call.Fun.Pos(), types.ExprString(call.Fun) + " (no value) used as value or type"
		}
		if !ok || tv.Type == nil || tv.IsType() || tv.IsBuiltin() || !tv.IsValue() {
			return token.NoPos, ""
		}
		qual := func(p *types.Package) string { return p.Name() }
		switch u := tv.Type.Underlying().(type) {
		case *types.Signature, *types.Interface:
			return token.NoPos, "" // a function, or a type parameter's constraint
		case *types.Basic:
			if u.Kind() == types.Invalid {
				return token.NoPos, ""
			}
		case *types.Tuple:
			return call.Fun.Pos(), "multiple-value " + types.ExprString(call.Fun) + " (value of type " + types.TypeString(tv.Type, qual) + ") in single-value context"
		}
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
		return call.Fun.Pos(), "invalid operation: cannot call " + types.ExprString(call.Fun) + " (" + what + "): " + types.TypeString(tv.Type, qual) + " is not a function"
	})
}

// maxWidth is the size from which Go's compiler refuses a type on a
// 64-bit platform (cmd/compile's types.MaxWidth).
const maxWidth = 1 << 50

// TooLarge finds the first array type in nodes that Go's compiler
// refuses as larger than the address space ([1<<62]byte), which yaegi
// would allocate, killing the worker with "fatal error: out of memory".
// It returns that compile error's position and message, or "" for none.
func TooLarge(info *types.Info, nodes ...ast.Node) (pos token.Pos, msg string) {
	sizes := types.SizesFor("gc", "amd64")
	return first(info, nodes, func(n ast.Node) (pos token.Pos, msg string) {
		at, ok := n.(*ast.ArrayType)
		if !ok || at.Len == nil {
			return token.NoPos, ""
		}
		tv, ok := info.Types[at]
		if !ok || tv.Type == nil {
			return token.NoPos, ""
		}
		defer func() {
			if recover() != nil { // go/types' sizes of a type it could not check
				pos, msg = token.NoPos, ""
			}
		}()
		if size := sizes.Sizeof(tv.Type); size >= 0 && size < maxWidth {
			return token.NoPos, ""
		}
		return at.Pos(), "type " + types.TypeString(tv.Type, func(p *types.Package) string { return p.Name() }) + " larger than address space"
	})
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

// knownPackage reports whether the selector's package at pos (the
// position of an "undefined: pkg.Name" error: the selector's name) is
// one the importer knows, not an empty stand-in.
func knownPackage(info *types.Info, pos token.Pos) bool {
	for id, obj := range info.Uses {
		pn, ok := obj.(*types.PkgName)
		if !ok || id.Pos() >= pos || pos-id.End() > 1 {
			continue
		}
		return pn.Imported().Scope().Len() > 0
	}
	return false
}
