package rewrite

import "go/ast"

// labelNames renames the labels of n that have the name of another
// identifier of n or of a session variable (start: beside a variable
// start): labels have a name space of their own in Go, but yaegi looked
// them up among the variables ("label start not defined").
func (r *rewriter) labelNames(n ast.Node) {
	labels := map[*ast.Ident]bool{}
	ast.Inspect(n, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.LabeledStmt:
			labels[x.Label] = true
		case *ast.BranchStmt:
			if x.Label != nil {
				labels[x.Label] = true
			}
		}
		return true
	})
	if len(labels) == 0 {
		return
	}
	names := map[string]bool{}
	ast.Inspect(n, func(node ast.Node) bool {
		if id, ok := node.(*ast.Ident); ok && !labels[id] {
			names[id.Name] = true
		}
		return true
	})
	for id := range labels {
		if _, global := r.globals[id.Name]; names[id.Name] || global {
			r.ed.Replace(id.Pos(), id.End(), helperPrefix+"label_"+id.Name)
		}
	}
}
