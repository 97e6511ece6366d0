package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// shadows rewrites the definitions x := x (a new variable initialised
// from the one it shadows) in the blocks of the cell's top-level
// statements, outside function literals: there yaegi reads the new, zero
// variable on the right. The value goes through a fresh variable:
//
//	c := c   becomes   __gnnlab_sh1 := c; c := __gnnlab_sh1
//
// Only definitions that are statements of a block or a clause are
// rewritten (not the init of if, for or switch).
func (r *rewriter) shadows(body *ast.BlockStmt) {
	ast.Inspect(body, func(x ast.Node) bool {
		if _, ok := x.(*ast.FuncLit); ok {
			return false
		}
		list := stmtList(x)
		for _, st := range list {
			if as, ok := st.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && x != body {
				r.shadow(as)
			}
		}
		return true
	})
}

func (r *rewriter) shadow(as *ast.AssignStmt) {
	if len(as.Lhs) != len(as.Rhs) {
		return
	}
	defined := map[string]bool{}
	for _, e := range as.Lhs {
		if id, ok := e.(*ast.Ident); ok && r.info.Defs[id] != nil {
			defined[id.Name] = true
		}
	}
	reads := false
	for _, e := range as.Rhs {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && defined[id.Name] {
				reads = true
			}
			_, lit := n.(*ast.FuncLit)
			return !reads && !lit
		})
	}
	if !reads {
		return
	}
	tmps := make([]string, len(as.Lhs))
	for k := range tmps {
		tmps[k] = r.fresh("sh")
	}
	lhs := r.ed.Text(as.Lhs[0].Pos(), as.Lhs[len(as.Lhs)-1].End(), false)
	r.ed.Replace(as.Lhs[0].Pos(), as.TokPos+token.Pos(len(":=")), strings.Join(tmps, ", ")+" :=")
	r.ed.Insert(as.End(), "; "+lhs+" := "+strings.Join(tmps, ", "), false)
}

// globalShadows renames the variables that a definition in a block of the
// cell's top-level statements (outside function literals) gives the name
// of a global: yaegi assigned the global instead (b := k in if or range
// body at the top of a cell changed the session's b for good). The new
// variable and its uses get a fresh name, __gnnlab_gs1_b. Definitions
// that read the name they define are left to shadow.
func (r *rewriter) globalShadows(body *ast.BlockStmt) {
	top := map[string]bool{}
	for _, st := range body.List {
		if as, ok := st.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
			for _, e := range as.Lhs {
				if id, ok := e.(*ast.Ident); ok {
					top[id.Name] = true
				}
			}
		}
		if ds, ok := st.(*ast.DeclStmt); ok {
			if gd, ok := ds.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				for _, sp := range gd.Specs {
					for _, id := range sp.(*ast.ValueSpec).Names {
						top[id.Name] = true
					}
				}
			}
		}
	}
	global := func(name string) bool {
		_, g := r.globals[name]
		return g || top[name]
	}
	renamed := map[types.Object]string{}
	var defs []*ast.Ident
	ast.Inspect(body, func(x ast.Node) bool {
		if _, ok := x.(*ast.FuncLit); ok {
			return false
		}
		list := stmtList(x)
		if x == body {
			return true
		}
		for _, st := range list {
			var ids []*ast.Ident
			switch st := st.(type) {
			case *ast.AssignStmt:
				if st.Tok != token.DEFINE || r.readsDefined(st) {
					continue
				}
				for _, e := range st.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						ids = append(ids, id)
					}
				}
			case *ast.DeclStmt:
				if gd, ok := st.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
					for _, sp := range gd.Specs {
						ids = append(ids, sp.(*ast.ValueSpec).Names...)
					}
				}
			}
			for _, id := range ids {
				obj := r.info.Defs[id]
				if obj == nil || id.Name == "_" || !global(id.Name) {
					continue
				}
				if _, ok := obj.(*types.Var); !ok {
					continue
				}
				renamed[obj] = r.fresh("gs") + "_" + id.Name
				defs = append(defs, id)
			}
		}
		return true
	})
	if len(renamed) == 0 {
		return
	}
	for _, id := range defs {
		r.ed.Replace(id.Pos(), id.End(), renamed[r.info.Defs[id]])
	}
	ast.Inspect(body, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok {
			if name, ok := renamed[r.info.Uses[id]]; ok {
				r.ed.Replace(id.Pos(), id.End(), name)
			}
		}
		return true
	})
}

// readsDefined reports whether a definition reads a name it defines
// (c := c), which shadow rewrites.
func (r *rewriter) readsDefined(as *ast.AssignStmt) bool {
	defined := map[string]bool{}
	for _, e := range as.Lhs {
		if id, ok := e.(*ast.Ident); ok {
			defined[id.Name] = true
		}
	}
	reads := false
	for _, e := range as.Rhs {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && defined[id.Name] {
				reads = true
			}
			return !reads
		})
	}
	return reads
}
