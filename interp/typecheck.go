package interp

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
	"strings"

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
		for _, n := range declNames(d) {
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
		// (internal/rewrite/rewrite_call.go).
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
