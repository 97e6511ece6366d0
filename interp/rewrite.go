package interp

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// Names of the helpers that rewritten cells call; see helperSrc.
const (
	helperPrefix = "__gnnlab_"
	helperMin    = helperPrefix + "min"
	helperMax    = helperPrefix + "max"
	helperRT     = helperPrefix + "rt" // the compiled helpers, runtimeSymbols
)

// helperSrc is compiled into every interpreter. min and max are generic
// over the ordered basic types because yaegi lacks the builtins.
const helperSrc = `package main

import __gnnlab_rt "gnnlabrt"

func __gnnlab_min[T ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string](x T, y ...T) T {
	for _, v := range y {
		if v < x || v != v {
			x = v
		}
	}
	return x
}

func __gnnlab_max[T ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string](x T, y ...T) T {
	for _, v := range y {
		if v > x || v != v {
			x = v
		}
	}
	return x
}
`

// rtFunc refers to a compiled helper of runtimeSymbols.
func rtFunc(name string, pos token.Pos) ast.Expr {
	x := ast.NewIdent(helperRT)
	x.NamePos = pos
	return &ast.SelectorExpr{X: x, Sel: &ast.Ident{Name: name, NamePos: pos}}
}

// unsupportedError is a construct found before running that yaegi cannot
// handle.
type unsupportedError struct {
	pos token.Pos
	msg string
}

func (e *unsupportedError) Error() string { return e.msg }

// fakeImporter gives every import an empty package: the session type-checks
// a cell only to learn the types of range expressions and builtin calls,
// and must work without the export data of the imported packages.
type fakeImporter struct{}

func (fakeImporter) Import(path string) (*types.Package, error) {
	name := path[strings.LastIndex(path, "/")+1:]
	p := types.NewPackage(path, name)
	p.MarkComplete()
	return p, nil
}

// typeExpr writes t as Go source when it names only predeclared types, so
// that session globals can be declared to the type checker.
func typeExpr(t reflect.Type) (string, bool) {
	s := t.String()
	if strings.ContainsAny(s, ".") || strings.Contains(s, "struct") || strings.Contains(s, "interface") {
		return "", false
	}
	return s, true
}

// typecheck runs go/types over the cell with the session's globals
// declared, ignoring every error, and returns what it learnt.
func typecheck(fset *token.FileSet, pc *parsedCell, globals map[string]reflect.Value, earlier []*declRec) (info *types.Info, undefined []types.Error) {
	declared := map[string]bool{}
	for _, d := range pc.decls.Decls {
		for _, n := range declNames(d) {
			declared[n] = true
		}
	}
	var gs strings.Builder
	gs.WriteString("package main\n")
	for name, v := range globals {
		if declared[name] || strings.HasPrefix(name, helperPrefix) || !v.IsValid() {
			continue
		}
		if te, ok := typeExpr(v.Type()); ok {
			fmt.Fprintf(&gs, "var %s %s\n", name, te)
		}
	}
	// Types and constants of earlier cells help to infer more.
	for _, rec := range earlier {
		if rec.dead || (rec.tok != token.TYPE && rec.tok != token.CONST) {
			continue
		}
		clash := false
		for _, n := range rec.names {
			clash = clash || declared[n]
		}
		if !clash {
			gs.WriteString(rec.text + "\n")
		}
	}
	gf, err := parser.ParseFile(fset, "", gs.String(), 0)
	files := []*ast.File{}
	if err == nil {
		files = append(files, gf)
	}
	decls := append([]ast.Decl{}, pc.decls.Decls...)
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
	}
	conf := types.Config{Importer: fakeImporter{}, Error: func(err error) {
		// Keep "undefined: x" of names that the session does not know
		// either: yaegi reports some of them obscurely.
		var te types.Error
		if errors.As(err, &te) && strings.HasPrefix(te.Msg, "undefined: ") {
			name := strings.TrimPrefix(te.Msg, "undefined: ")
			if _, ok := globals[name]; !ok && !strings.Contains(name, ".") {
				undefined = append(undefined, te)
			}
		}
	}}
	func() {
		// go/types is robust, but a panic here must not fail the cell.
		defer func() { _ = recover() }()
		_, _ = conf.Check("main", fset, files, info)
	}()
	return info, undefined
}

// rewriter applies the source rewrites that stand in for Go features
// yaegi lacks (see the package doc).
type rewriter struct {
	info      *types.Info
	undefined []types.Error // from typecheck
	globals   map[string]reflect.Value
	n         int
	unknown   token.Pos // a range statement whose operand type is unknown
}

func (r *rewriter) fresh(base string) *ast.Ident {
	r.n++
	return ast.NewIdent(helperPrefix + base + strconv.Itoa(r.n))
}

// isBuiltin reports whether id refers to the predeclared function name.
func (r *rewriter) isBuiltin(id *ast.Ident, name string) bool {
	if id.Name != name {
		return false
	}
	if obj, ok := r.info.Uses[id]; ok {
		_, b := obj.(*types.Builtin)
		return b
	}
	_, shadowed := r.globals[name]
	return !shadowed
}

// rewrite rewrites n in place and returns the first unsupported construct.
func (r *rewriter) rewrite(n ast.Node) error {
	var err error
	astutil.Apply(n, nil, func(c *astutil.Cursor) bool {
		switch x := c.Node().(type) {
		case *ast.RangeStmt:
			if x.X == nil {
				return true
			}
			tv, ok := r.info.Types[x.X]
			if !ok || tv.Type == nil || tv.Type == types.Typ[types.Invalid] {
				if r.unknown == token.NoPos && (x.Value == nil) {
					r.unknown = x.For
				}
				return true
			}
			switch u := tv.Type.Underlying().(type) {
			case *types.Basic:
				if u.Info()&types.IsInteger != 0 {
					c.Replace(r.rangeInt(x, tv.Type))
				}
			case *types.Signature:
				if err == nil {
					err = &unsupportedError{x.For, "range over a function (range-over-func iterators, Go 1.23) is not supported by the interpreter"}
				}
			}
		case *ast.CallExpr:
			id, ok := x.Fun.(*ast.Ident)
			if !ok {
				return true
			}
			switch {
			case r.isBuiltin(id, "min"), r.isBuiltin(id, "max"):
				helper := ast.NewIdent(helperPrefix + id.Name)
				helper.NamePos = id.NamePos
				x.Fun = helper
				if tv, ok := r.info.Types[x]; ok && tv.Type != nil {
					if b, ok := types.Default(tv.Type).(*types.Basic); ok && b.Kind() != types.Invalid {
						x.Fun = &ast.IndexExpr{X: helper, Index: ast.NewIdent(b.Name()), Lbrack: id.End(), Rbrack: id.End()}
					}
				}
			case r.isBuiltin(id, "clear"):
				x.Fun = rtFunc("Clear", id.NamePos)
			}
		}
		return true
	})
	return err
}

// rangeInt turns `for k := range n` into a three-clause loop.
func (r *rewriter) rangeInt(x *ast.RangeStmt, t types.Type) ast.Stmt {
	tname := types.TypeString(types.Default(t), func(*types.Package) string { return "" })
	conv := func(e ast.Expr) ast.Expr {
		return &ast.CallExpr{Fun: ast.NewIdent(tname), Args: []ast.Expr{e}, Lparen: x.For, Rparen: x.For}
	}
	i, n := r.fresh("i"), r.fresh("n")
	body := x.Body
	if key, ok := x.Key.(*ast.Ident); ok && x.Tok == token.DEFINE && key.Name != "_" {
		i = key
	} else if x.Key != nil && x.Tok == token.ASSIGN {
		// The loop variable exists already: assign it on each iteration.
		assign := &ast.AssignStmt{Lhs: []ast.Expr{x.Key}, Tok: token.ASSIGN, Rhs: []ast.Expr{ast.NewIdent(i.Name)}, TokPos: x.TokPos}
		body = &ast.BlockStmt{Lbrace: body.Lbrace, Rbrace: body.Rbrace, List: append([]ast.Stmt{assign}, body.List...)}
	}
	zero := &ast.BasicLit{Kind: token.INT, Value: "0", ValuePos: x.For}
	return &ast.ForStmt{
		For: x.For,
		Init: &ast.AssignStmt{
			Lhs: []ast.Expr{i, n}, Tok: token.DEFINE, TokPos: x.For,
			Rhs: []ast.Expr{conv(zero), conv(x.X)},
		},
		Cond: &ast.BinaryExpr{X: ast.NewIdent(i.Name), Op: token.LSS, Y: ast.NewIdent(n.Name), OpPos: x.For},
		Post: &ast.IncDecStmt{X: ast.NewIdent(i.Name), Tok: token.INC, TokPos: x.For},
		Body: body,
	}
}

// funcsToVars rewrites each plain top-level function `func f(p) r {b}` to
// `var f func(p) r = func(p) r {b}`, so that a later redefinition of f is
// seen by the functions that call it. Methods, generic functions and init
// stay declarations.
func funcsToVars(f *ast.File) {
	for i, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || !plainFunc(fd) {
			continue
		}
		typ := *fd.Type
		typ.Func = fd.Name.NamePos
		lit := &ast.FuncLit{Type: fd.Type, Body: fd.Body}
		f.Decls[i] = &ast.GenDecl{
			TokPos: fd.Type.Func,
			Tok:    token.VAR,
			Specs: []ast.Spec{&ast.ValueSpec{
				Names:  []*ast.Ident{fd.Name},
				Type:   &typ,
				Values: []ast.Expr{lit},
			}},
		}
	}
}
