package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
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
func hoist(pc *Cell, rw, srw *rewriter) {
	if !pc.HasDecls || !pc.HasStmts {
		return
	}
	used := map[string]bool{}
	ast.Inspect(pc.Decls, func(n ast.Node) bool {
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
	for _, st := range pc.Body.List {
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
		srw.ed.Replace(as.TokPos, as.TokPos+token.Pos(len(":=")), "=")
	}
	rw.hoistDecl = decl.String()
	inOrder(pc, rw, srw, hoisted)
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

// inOrder moves the initialisation of a var declaration of the cell whose
// values read a variable that hoist declared (xs := []int{3, 1, 2}; var si
// sort.Interface = rs{xs}) among the statements, where the declaration
// is: runDecls, which runs before the statements, had initialised it from
// the zero xs (si.Len() was 0), where a Go function body runs the two in
// order. The variable is still declared with the declarations; the
// assignment takes the place of the declaration's text in the
// statements, and rw.inOrder tells runDecls to leave it out (false), or
// the whole declaration (true) when go/types does not know the type.
func inOrder(pc *Cell, rw, srw *rewriter, hoisted map[string]bool) {
	if len(hoisted) == 0 {
		return
	}
	stmtPos := func(p token.Pos) token.Pos {
		return srw.ed.file.Pos(rw.ed.Off(p) - pc.DeclBase + pc.StmtBase)
	}
	// A declaration whose values read a moved one moves too (var r2
	// Reader = rw after var rw ReadWriter = b).
	var specs []*ast.ValueSpec
	moved := map[string]bool{}
	for n := range hoisted {
		moved[n] = true
	}
	for grew := true; grew; {
		grew = false
		for _, d := range pc.Decls.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				if len(vs.Values) == 0 || slices.Contains(specs, vs) || !valuesRefer(vs.Values, moved) {
					continue
				}
				specs = append(specs, vs)
				for _, n := range vs.Names {
					moved[n.Name] = true
				}
				grew = true
			}
		}
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Pos() < specs[j].Pos() })
	for _, vs := range specs {
		if rw.inOrder == nil {
			rw.inOrder = map[*ast.ValueSpec]bool{}
		}
		if !knownTypes(vs, rw) {
			// go/types did not find the type from the hoisted
			// variable (var n = len(xs)): runDecls would declare
			// it with its value; the statements do, unless a
			// declaration of the cell uses it.
			if !usedIn(pc.Decls, vs, rw.info) {
				srw.ed.Replace(stmtPos(vs.Pos()), stmtPos(vs.End()), "var "+rw.ed.Text(vs.Pos(), vs.End(), false)+";")
				rw.inOrder[vs] = true
				srw.inOrderEnd = max(srw.inOrderEnd, stmtPos(vs.End()))
			}
			continue
		}
		names := make([]string, len(vs.Names))
		for k, n := range vs.Names {
			names[k] = n.Name
		}
		first, last := vs.Values[0], vs.Values[len(vs.Values)-1]
		lhs := strings.Join(names, ", ") + " = "
		if gap := rw.ed.Off(first.Pos()) - rw.ed.Off(vs.Names[0].Pos()); gap > len(lhs) {
			lhs = strings.Join(names, ", ") + strings.Repeat(" ", gap-len(lhs)) + " = "
		}
		srw.ed.Replace(stmtPos(vs.Names[0].Pos()), stmtPos(first.Pos()), lhs)
		srw.ed.Replace(stmtPos(first.Pos()), stmtPos(last.End()), rw.ed.Text(first.Pos(), last.End(), false)+";")
		rw.inOrder[vs] = false
		srw.inOrderEnd = max(srw.inOrderEnd, stmtPos(last.End()))
	}
}

func valuesRefer(values []ast.Expr, names map[string]bool) bool {
	for _, v := range values {
		if refers(v, names) {
			return true
		}
	}
	return false
}

// knownTypes reports whether go/types knows the types of the variables
// that vs declares, so that runDecls declares them first.
func knownTypes(vs *ast.ValueSpec, rw *rewriter) bool {
	if vs.Type != nil {
		return true
	}
	for _, n := range vs.Names {
		obj := rw.info.Defs[n]
		if obj == nil || obj.Type() == nil {
			return false
		}
		if _, ok := typeText(obj.Type(), rw.names); !ok {
			return false
		}
	}
	return true
}

// usedIn reports whether a name of root other than those of vs refers to
// a variable that vs declares.
func usedIn(root ast.Node, vs *ast.ValueSpec, info *types.Info) bool {
	vars := map[types.Object]bool{}
	for _, n := range vs.Names {
		if obj := info.Defs[n]; obj != nil {
			vars[obj] = true
		}
	}
	used := false
	ast.Inspect(root, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && vars[info.Uses[id]] {
			used = true
		}
		return !used
	})
	return used
}
