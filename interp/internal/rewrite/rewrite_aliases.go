package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// Type aliases declared in functions, which yaegi v0.16.1 did not
// declare: the pass "localaliases".

// localAliasesPass is the pass "localaliases".
func localAliasesPass(r *rewriter, n ast.Node) Visit {
	if x, ok := n.(*ast.DeclStmt); ok {
		r.localAliases(r.root, x)
	}
	return Next
}

// localAliases removes the type aliases declared in a function (type
// celsius = float64), which yaegi did not declare ("undefined: celsius"),
// and writes the aliased type at their uses, in parentheses in a
// conversion (ptr(x) with ptr = *T becomes (*T)(x)).
func (r *rewriter) localAliases(root ast.Node, d *ast.DeclStmt) {
	gd, ok := d.Decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.TYPE {
		return
	}
	texts := map[types.Object]string{}
	all := true
	for _, sp := range gd.Specs {
		ts := sp.(*ast.TypeSpec)
		obj, ok := r.info.Defs[ts.Name].(*types.TypeName)
		if !ts.Assign.IsValid() || !ok || !obj.IsAlias() {
			all = false
			continue
		}
		t, ok := typeText(types.Unalias(obj.Type()), r.names)
		if !ok {
			all = false
			continue
		}
		texts[obj] = t
	}
	if len(texts) == 0 {
		return
	}
	called := map[*ast.Ident]bool{}
	ast.Inspect(root, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
				called[id] = true
			}
		case *ast.Ident:
			if t, ok := texts[r.info.Uses[x]]; ok {
				if called[x] {
					t = "(" + t + ")"
				}
				r.ed.Replace(x.Pos(), x.End(), t)
			}
		}
		return true
	})
	// What is removed keeps its line breaks, so that the lines after it
	// keep their numbers.
	remove := func(from, to token.Pos) {
		r.ed.Replace(from, to, strings.Repeat("\n", strings.Count(r.ed.src[r.ed.Off(from):r.ed.Off(to)], "\n")))
	}
	if all {
		remove(d.Pos(), d.End()) // yaegi failed on an empty type ( )
		return
	}
	for _, sp := range gd.Specs {
		if ts := sp.(*ast.TypeSpec); texts[r.info.Defs[ts.Name]] != "" {
			remove(ts.Pos(), ts.End())
		}
	}
}
