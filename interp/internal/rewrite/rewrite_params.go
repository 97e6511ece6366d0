package rewrite

import "go/ast"

// Unnamed parameters.
//
// An unnamed parameter of a function declaration or literal (func (n
// Num) Eval(map[string]float64) float64) is named _: yaegi stored the
// receiver's value in the first of them (reflect.Set: value of type
// map[string]float64 is not assignable to type float64). The pass
// "params" is a pass of single nodes (Pass.Node).

// params is the pass "params".
func params(r *rewriter, n ast.Node) Visit {
	switch x := n.(type) {
	case *ast.FuncDecl:
		r.unnamedParams(x.Type)
	case *ast.FuncLit:
		r.unnamedParams(x.Type)
	}
	return Next
}

// unnamedParams names the unnamed parameters of a function declaration
// or literal _ (func (n Num) Eval(map[string]float64) float64): yaegi
// stored the receiver's value in the first of them (reflect.Set: value of
// type map[string]float64 is not assignable to type float64).
func (r *rewriter) unnamedParams(ft *ast.FuncType) {
	if ft.Params == nil {
		return
	}
	for _, f := range ft.Params.List {
		if len(f.Names) == 0 {
			r.ed.Insert(f.Type.Pos(), "_ ", false)
		}
	}
}
