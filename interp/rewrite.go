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
)

// Names of the helpers that rewritten cells call; see helperSrc.
const (
	helperPrefix = "__gnnlab_"
	helperMin    = helperPrefix + "min"
	helperMax    = helperPrefix + "max"
	helperRT     = helperPrefix + "rt" // the compiled helpers, runtimeSymbols
	helperMain   = helperPrefix + "main"
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

// rewriter finds the constructs that stand in for Go features yaegi
// lacks (see the package doc) and records their rewrites as text edits.
type rewriter struct {
	info      *types.Info
	undefined []types.Error // from typecheck
	globals   map[string]reflect.Value
	ed        *editor
	n         int
	unknown   token.Pos // a range statement whose operand type is unknown
}

func (r *rewriter) fresh(base string) string {
	r.n++
	return helperPrefix + base + strconv.Itoa(r.n)
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

// rewrite records the edits for n and returns the first unsupported
// construct.
func (r *rewriter) rewrite(n ast.Node) error {
	var err error
	ast.Inspect(n, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.RangeStmt:
			if x.X == nil {
				return true
			}
			tv, ok := r.info.Types[x.X]
			if !ok || tv.Type == nil || tv.Type == types.Typ[types.Invalid] {
				if r.unknown == token.NoPos && x.Value == nil {
					r.unknown = x.For
				}
				return true
			}
			switch u := tv.Type.Underlying().(type) {
			case *types.Basic:
				if u.Info()&types.IsInteger != 0 {
					r.rangeInt(x, tv.Type)
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
				helper := helperPrefix + id.Name
				if tv, ok := r.info.Types[x]; ok && tv.Type != nil {
					if b, ok := types.Default(tv.Type).(*types.Basic); ok && b.Kind() != types.Invalid {
						helper += "[" + b.Name() + "]"
					}
				}
				r.ed.replace(id.Pos(), id.End(), helper)
			case r.isBuiltin(id, "clear"):
				r.ed.replace(id.Pos(), id.End(), helperRT+".Clear")
			}
		}
		return true
	})
	return err
}

// rangeInt turns `for k := range n {` into a three-clause loop, leaving
// the operand's text in place.
func (r *rewriter) rangeInt(x *ast.RangeStmt, t types.Type) {
	tname := types.TypeString(types.Default(t), func(*types.Package) string { return "" })
	i, n := r.fresh("i"), r.fresh("n")
	tail := ""
	if key, ok := x.Key.(*ast.Ident); ok && x.Tok == token.DEFINE && key.Name != "_" {
		i = key.Name
	} else if x.Key != nil && x.Tok == token.ASSIGN {
		// The loop variable exists already: assign it on each iteration.
		tail = " " + r.ed.text(x.Key.Pos(), x.Key.End(), false) + " = " + i + ";"
	}
	r.ed.replace(x.For, x.X.Pos(), "for "+i+", "+n+" := "+tname+"(0), "+tname+"(")
	r.ed.replace(x.X.End(), x.Body.Lbrace+1, "); "+i+" < "+n+"; "+i+"++ {"+tail)
}

// funcsToVars rewrites each plain top-level function `func f(p) r {b}` to
// `var f func(p) r = func(p) r {b}`, so that a later redefinition of f is
// seen by the functions that call it. Methods, generic functions and init
// stay declarations.
func funcsToVars(f *ast.File, ed *editor) {
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || !plainFunc(fd) {
			continue
		}
		sig := ed.text(fd.Type.Params.Pos(), fd.Type.End(), false)
		ed.replace(fd.Pos(), fd.Type.Params.Pos(), "var "+funcName(fd)+" func"+sig+" = func")
	}
}

// funcName is the name a plain function gets in the interpreter: main is
// renamed, since yaegi would run a function named main on every later cell.
func funcName(fd *ast.FuncDecl) string {
	if fd.Name.Name == "main" {
		return helperMain
	}
	return fd.Name.Name
}
