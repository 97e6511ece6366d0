package interp

import (
	"go/ast"
	"go/token"
	"strings"
)

// Variables of a cell's statements used by its declarations.
//
// The session runs a cell's declarations before its statements, so a
// function could not use a variable that a statement of the same cell
// defines (y := 41; func f() int { return y + 1 } failed with
// "undefined: y"). Such variables are declared with the declarations
// (var y int, with the type go/types found), and their definitions become
// assignments (y = 41), which run in their place among the statements.

// hoist finds the variables that top-level definitions of the cell's
// statements define and its declarations use, and records their
// declarations (in rw.hoistDecl, for runDecls) and the rewrites of their
// definitions (in srw). The undefined names that it resolves are dropped
// from both rewriters' lists.
func hoist(pc *parsedCell, rw, srw *rewriter) {
	if !pc.hasDecls || !pc.hasStmts {
		return
	}
	used := map[string]bool{}
	ast.Inspect(pc.decls, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(x.X, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && rw.info.Uses[id] == nil && rw.info.Defs[id] == nil {
					used[id.Name] = true
				}
				return true
			})
			return false
		case *ast.Ident:
			if rw.info.Uses[x] == nil && rw.info.Defs[x] == nil {
				used[x.Name] = true
			}
		}
		return true
	})
	if len(used) == 0 {
		return
	}
	var decl strings.Builder
	hoisted := map[string]bool{}
	for _, st := range pc.body.List {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE {
			continue
		}
		needed := false
		var defs []string
		writable := true
		for _, e := range as.Lhs {
			id, ok := e.(*ast.Ident)
			if !ok {
				writable = false
				break
			}
			obj := srw.info.Defs[id]
			if obj == nil || id.Name == "_" {
				continue // assigned, not defined (var _ T alone: yaegi refuses it)
			}
			needed = needed || used[id.Name]
			t, ok := typeText(obj.Type(), srw.names)
			if !ok {
				writable = false
				break
			}
			defs = append(defs, "var "+id.Name+" "+t+"\n")
		}
		if !needed || !writable {
			continue
		}
		for _, d := range defs {
			decl.WriteString(d)
		}
		for _, e := range as.Lhs {
			hoisted[e.(*ast.Ident).Name] = true
		}
		if srw.hoisted == nil {
			srw.hoisted = map[ast.Stmt]bool{}
		}
		srw.hoisted[as] = true
		srw.ed.replace(as.TokPos, as.TokPos+token.Pos(len(":=")), "=")
	}
	rw.hoistDecl = decl.String()
	for _, r := range []*rewriter{rw, srw} {
		kept := r.undefined[:0:0]
		for _, u := range r.undefined {
			if !hoisted[strings.TrimPrefix(u.Msg, "undefined: ")] {
				kept = append(kept, u)
			}
		}
		r.undefined = kept
	}
}
