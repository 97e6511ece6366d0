package interp

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// Range over a function (Go 1.23), which yaegi lacks, becomes a call of
// the function with the loop body as the yield function:
//
//	for k, v := range seq { body }
//	seq(func(k K, v V) bool { body; return true })
//
// where a continue of the loop becomes return true and a break return
// false. A body that holds return, goto, defer, or a break or continue of
// an outer statement cannot move into a function literal; such loops, and
// labelled ones, stay unsupported.

// rangeFunc rewrites x, whose operand has signature sig; false when it
// cannot.
func (r *rewriter) rangeFunc(x *ast.RangeStmt, sig *types.Signature) bool {
	if r.labels[x] != "" || sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return false
	}
	yield, ok := sig.Params().At(0).Type().Underlying().(*types.Signature)
	if !ok || yield.Results().Len() != 1 || yield.Params().Len() > 2 {
		return false
	}
	vars := []ast.Expr{x.Key, x.Value}
	params := make([]string, yield.Params().Len())
	var assigns []string
	for k := range params {
		t, ok := typeText(yield.Params().At(k).Type(), r.names)
		if !ok {
			return false
		}
		name := "_"
		if k < len(vars) && vars[k] != nil {
			switch {
			case x.Tok == token.DEFINE:
				name = vars[k].(*ast.Ident).Name
			case x.Tok == token.ASSIGN:
				name = r.fresh("rv")
				assigns = append(assigns, r.ed.text(vars[k].Pos(), vars[k].End(), false)+" = "+name+";")
			}
		}
		params[k] = name + " " + t
	}
	branches, ok := r.loopExits(x.Body)
	if !ok {
		return false
	}
	for _, b := range branches {
		text := "return true"
		if b.Tok == token.BREAK {
			text = "return false"
		}
		r.ed.replace(b.Pos(), b.End(), text)
	}
	r.ed.replace(x.For, x.X.Pos(), "")
	r.ed.replace(x.X.End(), x.Body.Lbrace+1, "(func("+strings.Join(params, ", ")+") bool {"+strings.Join(assigns, " "))
	r.ed.replace(x.Body.Rbrace, x.Body.Rbrace+1, "; return true })")
	return true
}

// loopExits returns the break and continue statements of a loop body
// that leave or continue the loop; false when the body holds return,
// goto, defer or a labelled branch.
func (r *rewriter) loopExits(body *ast.BlockStmt) ([]*ast.BranchStmt, bool) {
	var out []*ast.BranchStmt
	ok := true
	var walk func(n ast.Node, breakNested, continueNested bool)
	walk = func(n ast.Node, breakNested, continueNested bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			if !ok {
				return false
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt, *ast.DeferStmt, *ast.LabeledStmt:
				ok = false
			case *ast.ForStmt:
				walk(m.Body, true, true)
				return false
			case *ast.RangeStmt:
				walk(m.Body, true, true)
				return false
			case *ast.SwitchStmt:
				walk(m.Body, true, continueNested)
				return false
			case *ast.TypeSwitchStmt:
				walk(m.Body, true, continueNested)
				return false
			case *ast.SelectStmt:
				walk(m.Body, true, continueNested)
				return false
			case *ast.BranchStmt:
				switch {
				case m.Label != nil || m.Tok == token.GOTO:
					ok = false
				case m.Tok == token.BREAK && !breakNested, m.Tok == token.CONTINUE && !continueNested:
					out = append(out, m)
				}
			}
			return true
		})
	}
	walk(body, false, false)
	return out, ok
}
