package rewrite

import (
	"go/ast"
	"go/token"
)

// break L inside a select, of the loop that L labels: the pass
// "selectbreaks".

// selectBreaksPass is the pass "selectbreaks".
func selectBreaksPass(r *rewriter, n ast.Node) Visit {
	if x, ok := n.(*ast.LabeledStmt); ok {
		r.selectBreaks(x)
	}
	return Next
}

// selectBreaks rewrites break L, inside a select statement, of the for or
// range statement that l labels, into a goto to a label after the loop:
// yaegi's break did not leave the loop (the cell hung).
func (r *rewriter) selectBreaks(l *ast.LabeledStmt) {
	switch l.Stmt.(type) {
	case *ast.ForStmt, *ast.RangeStmt:
	default:
		return
	}
	var found []*ast.BranchStmt
	var walk func(n ast.Node, inSelect bool)
	walk = func(n ast.Node, inSelect bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.SelectStmt:
				if !inSelect {
					walk(m.Body, true)
					return false
				}
			case *ast.BranchStmt:
				if inSelect && m.Tok == token.BREAK && m.Label != nil && m.Label.Name == l.Label.Name {
					found = append(found, m)
				}
			}
			return true
		})
	}
	walk(l.Stmt, false)
	if len(found) == 0 {
		return
	}
	end := r.fresh("brk")
	for _, b := range found {
		r.ed.Replace(b.Pos(), b.End(), "goto "+end)
	}
	r.ed.Insert(l.End(), "; "+end+": ;", false)
}
