package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// FuncLits moves the function literals of a cell's statements that use
// package-level names only (globals, this cell's declarations, imported
// packages) into functions declared for them: `h := func(a int) int {...}`
// runs as `h := __gnnlab_defsN()`, and func __gnnlab_defsN() func(a int)
// int { return func(a int) int {...} } is declared first, so that the
// literal copies that function's frame rather than the global one. A
// variable that a top-level definition of the statements makes (x := 1;
// k := func() int { return x }) counts as package-level: it is declared
// first (var x int) and its definition becomes an assignment, as hoist.go
// does for declarations, unless its type cannot be written there or its
// definition reads the name it defines (x := x + 1). A literal that uses
// another variable of the statements (of a block, a loop variable) stays
// where it is: the declared function could not see it. A literal in a
// defer statement stays too (defer.go rewrites those), and one in a go
// statement (rewrite_go.go declares a function for it): yaegi's go of a
// function value that a call returned reads the call's result slot when
// the goroutine starts, so that a loop's next call raced with it.
//
// Why the session wants them there: interp's frames.go. r is the
// statements' rewriter and body their block, after Apply. FuncLits edits
// r's text and returns what the session evaluates before it: decl, the
// var declarations of the definitions made assignments, and file, the
// declared functions, "" when there are none; made are the functions'
// names.
func (r *rewriter) FuncLits(body *ast.BlockStmt) (decl, file string, made []string) {
	if len(r.undefined) > 0 {
		return "", "", nil
	}
	info, ed := r.info, r.ed
	defs := cellDefs(body, info, r)
	declare := map[*ast.AssignStmt]bool{}
	var fb strings.Builder
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt, *ast.GoStmt:
			return false
		case *ast.FuncLit:
			used := map[*ast.AssignStmt]bool{}
			if !usesPackageOnly(n, info, defs, used) {
				return false
			}
			if name := r.makeLit(&fb, n); name != "" {
				made = append(made, name)
				for as := range used {
					declare[as] = true
				}
			}
			return false
		}
		return true
	})
	if fb.Len() == 0 {
		return "", "", nil
	}
	var db strings.Builder
	for _, st := range body.List {
		as, ok := st.(*ast.AssignStmt)
		if !ok || !declare[as] || r.hoisted[as] {
			continue
		}
		for _, e := range as.Lhs {
			if obj := info.Defs[e.(*ast.Ident)]; obj != nil {
				t, _ := TypeText(obj.Type(), r.names)
				db.WriteString("\nvar " + obj.Name() + " " + t + "\n")
			}
		}
		ed.Replace(as.TokPos, as.TokPos+token.Pos(len(":=")), "=")
	}
	return db.String(), fb.String(), made
}

// cellDefs maps the variables that the top-level definitions of the
// cell's statements make (x := 1) to their statements, where FuncLits can
// declare them first: the statement has no other rewrite, defines one
// name, its right side does not mention what it defines, and each type can
// be written at package level. hoist.go's statements are declared already.
func cellDefs(body *ast.BlockStmt, info *types.Info, r *rewriter) map[types.Object]*ast.AssignStmt {
	ed := r.ed
	defs := map[types.Object]*ast.AssignStmt{}
	for _, st := range body.List {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE {
			continue
		}
		a, b := ed.Off(as.Pos()), ed.Off(as.TokPos)+len(":=")
		edited := ed.EditedIn(a, b)
		names := map[string]bool{}
		writable := true
		var objs []types.Object
		for _, e := range as.Lhs {
			id, ok := e.(*ast.Ident)
			if !ok {
				writable = false
				break
			}
			names[id.Name] = true
			if obj := info.Defs[id]; obj != nil {
				_, ok := TypeText(obj.Type(), r.names)
				writable = writable && ok && packageLevelType(obj.Type(), 0)
				objs = append(objs, obj)
			}
		}
		// A statement of several values stays a definition: as an
		// assignment (a, b = x.F(), s[:n]) yaegi loses the values after
		// a method call (b is left empty).
		multi := len(as.Lhs) > 1
		if !r.hoisted[as] && (edited || !writable || multi || refersAny(as.Rhs, names)) {
			continue
		}
		for _, obj := range objs {
			defs[obj] = as
		}
	}
	return defs
}

func refersAny(es []ast.Expr, names map[string]bool) bool {
	for _, e := range es {
		if refers(e, names) {
			return true
		}
	}
	return false
}

// packageLevelType reports whether every named type in t is declared at
// package level (or predeclared, or in a compiled package), so that a
// package-level declaration can name it.
func packageLevelType(t types.Type, depth int) bool {
	if depth > 16 {
		return false
	}
	d := depth + 1
	switch t := t.(type) {
	case *types.Basic:
		return t.Kind() != types.Invalid
	case *types.Named:
		if p := t.Obj().Parent(); p != nil && p != types.Universe && p.Parent() != types.Universe {
			return false
		}
		for i := range t.TypeArgs().Len() {
			if !packageLevelType(t.TypeArgs().At(i), d) {
				return false
			}
		}
		return true
	case *types.Alias:
		return packageLevelType(types.Unalias(t), d)
	case *types.Pointer:
		return packageLevelType(t.Elem(), d)
	case *types.Slice:
		return packageLevelType(t.Elem(), d)
	case *types.Array:
		return packageLevelType(t.Elem(), d)
	case *types.Chan:
		return packageLevelType(t.Elem(), d)
	case *types.Map:
		return packageLevelType(t.Key(), d) && packageLevelType(t.Elem(), d)
	case *types.Signature:
		for _, tu := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tu.Len() {
				if !packageLevelType(tu.At(i).Type(), d) {
					return false
				}
			}
		}
		return true
	case *types.Struct:
		for i := range t.NumFields() {
			if !packageLevelType(t.Field(i).Type(), d) {
				return false
			}
		}
		return true
	case *types.Interface:
		for i := range t.NumMethods() {
			if !packageLevelType(t.Method(i).Type(), d) {
				return false
			}
		}
		return true
	}
	return false
}

// makeLit writes the function that makes lit to file, replaces lit by
// its call and returns the function's name; it does nothing ("") when an
// edit straddles lit.
func (r *rewriter) makeLit(file *strings.Builder, lit *ast.FuncLit) string {
	ed := r.ed
	if ed.Straddled(lit.Pos(), lit.End()) {
		return "" // a rewrite of more than lit
	}
	typ := ed.Text(lit.Type.Pos(), lit.Type.End(), false)
	if strings.Contains(typ, "\n") {
		return ""
	}
	var name string
	if r.seq != nil {
		*r.seq++
		name = helperPrefix + "defs" + strconv.Itoa(*r.seq)
	} else {
		name = r.fresh("defs")
	}
	file.WriteString("func " + name + "() " + typ + " {" + ed.Piece(lit.Pos(), lit.End(), "return ", false) + "}\n")
	ed.Collapse(lit.Pos(), lit.End(), name+"()")
	return name
}

// usesPackageOnly reports whether every name lit uses is declared at
// package level, in the universe, inside lit, or by a definition of defs
// (added to used), as far as go/types knows: a name it did not resolve
// counts as local.
func usesPackageOnly(lit *ast.FuncLit, info *types.Info, defs map[types.Object]*ast.AssignStmt, used map[*ast.AssignStmt]bool) bool {
	ok := true
	ast.Inspect(lit, func(n ast.Node) bool {
		id, isID := n.(*ast.Ident)
		if !ok || !isID || id.Name == "_" {
			return ok
		}
		if _, def := info.Defs[id]; def {
			return true
		}
		obj := info.Uses[id]
		switch {
		case obj == nil:
			ok = false
		case obj.Pos() >= lit.Pos() && obj.Pos() < lit.End():
		case obj.Parent() == nil: // a field or a method
		case obj.Parent() == types.Universe, obj.Parent().Parent() == types.Universe:
		case defs[obj] != nil:
			used[defs[obj]] = true
		default:
			_, ok = obj.(*types.PkgName)
		}
		return ok
	})
	return ok
}
