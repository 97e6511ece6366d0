package rewrite

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
// false. A return of the enclosing function records its values in
// variables declared before the call and stops the iteration; after the
// call, the function returns them:
//
//	{ var ret int; var r0 T0
//	seq(func(v V) bool { ...; { r0 = x; ret = 2; return false }; ...; return true })
//	if ret == 2 { return r0 } }
//
// (ret is 1 for a bare return of named results). A body that holds goto,
// defer, or a break or continue of an outer statement cannot move into a
// function literal, nor can a return inside a nested range over a
// function; such loops, and labelled ones, stay unsupported.

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
				assigns = append(assigns, r.ed.Text(vars[k].Pos(), vars[k].End(), false)+" = "+name+";")
			}
		}
		params[k] = name + " " + t
	}
	branches, returns, ok := r.loopExits(x.Body)
	if !ok {
		return false
	}
	before, after, ok := r.loopReturns(x, returns)
	if !ok {
		return false
	}
	for _, b := range branches {
		text := "return true"
		if b.Tok == token.BREAK {
			text = "return false"
		}
		r.ed.Replace(b.Pos(), b.End(), text)
	}
	r.ed.Replace(x.For, x.X.Pos(), before)
	r.ed.Replace(x.X.End(), x.Body.Lbrace+1, "(func("+strings.Join(params, ", ")+") bool {"+strings.Join(assigns, " "))
	r.ed.Replace(x.Body.Rbrace, x.Body.Rbrace+1, "; return true })"+after)
	return true
}

// loopReturns rewrites the return statements of the body of x, a range
// over a function, to record their values and stop the iteration; it
// returns the text that declares the variables before the loop and the
// text that returns after it. false when the enclosing function is not
// found or its result types cannot be written.
func (r *rewriter) loopReturns(x *ast.RangeStmt, returns []*ast.ReturnStmt) (before, after string, ok bool) {
	if len(returns) == 0 {
		return "", "", true
	}
	sig := r.enclosingSignature(x)
	if sig == nil {
		return "", "", false
	}
	state := r.fresh("ret")
	decls := []string{"var " + state + " int;"}
	res := make([]string, sig.Results().Len())
	for k := range res {
		t, ok := typeText(sig.Results().At(k).Type(), r.names)
		if !ok {
			return "", "", false
		}
		res[k] = r.fresh("r")
		decls = append(decls, "var "+res[k]+" "+t+";")
	}
	bare := false
	for _, ret := range returns {
		switch {
		case len(ret.Results) == 0:
			bare = true
			r.ed.Replace(ret.Pos(), ret.End(), "{ "+state+" = 1; return false }")
		default:
			r.ed.Replace(ret.Pos(), ret.Results[0].Pos(), "{ "+strings.Join(res, ", ")+" = ")
			r.ed.Insert(ret.End(), "; "+state+" = 2; return false }", false)
		}
	}
	after = "; if " + state + " == 2 { return " + strings.Join(res, ", ") + " }"
	if bare {
		after += "; if " + state + " == 1 { return }"
	}
	return "{ " + strings.Join(decls, " ") + " ", after + " }", true
}

// enclosingSignature returns the signature of the innermost function
// declaration or literal of the rewritten source that holds n, or nil.
func (r *rewriter) enclosingSignature(n ast.Node) *types.Signature {
	var sig *types.Signature
	for _, f := range r.funcs {
		if f.Pos() > n.Pos() || f.End() < n.End() {
			continue
		}
		var t types.Type
		switch f := f.(type) {
		case *ast.FuncDecl:
			if obj := r.info.Defs[f.Name]; obj != nil {
				t = obj.Type()
			}
		case *ast.FuncLit:
			t = r.info.TypeOf(f)
		}
		if s, ok := t.(*types.Signature); ok {
			sig = s // r.funcs is in source order: the last is innermost
		} else {
			sig = nil
		}
	}
	return sig
}

// loopExits returns the break and continue statements of a loop body
// that leave or continue the loop, and its return statements; false when
// the body holds goto, defer, a labelled branch or a return inside a
// nested range over a function.
func (r *rewriter) loopExits(body *ast.BlockStmt) ([]*ast.BranchStmt, []*ast.ReturnStmt, bool) {
	var out []*ast.BranchStmt
	var returns []*ast.ReturnStmt
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
			case *ast.ReturnStmt:
				returns = append(returns, m)
			case *ast.DeferStmt, *ast.LabeledStmt:
				ok = false
			case *ast.ForStmt:
				walk(m.Body, true, true)
				return false
			case *ast.RangeStmt:
				n := len(returns)
				walk(m.Body, true, true)
				if t := r.info.TypeOf(m.X); t != nil && isSignature(t) && len(returns) > n {
					ok = false // its rewrite writes returns of its own
				}
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
	return out, returns, ok
}

func isSignature(t types.Type) bool {
	_, ok := t.Underlying().(*types.Signature)
	return ok
}

// rangeFuncs is the pass "rangefunc".
func rangeFuncs(r *rewriter, n ast.Node) Visit {
	x, t := r.rangeOver(n)
	if t == nil {
		return Next
	}
	sig, ok := t.Underlying().(*types.Signature)
	if !ok {
		return Next
	}
	if r.rangeFunc(x, sig) {
		return Done
	}
	r.fail(&unsupportedError{x.For, "this range over a function (range-over-func iterator, Go 1.23) is not supported by the interpreter: its body defers, uses goto or a label, returns inside a nested range over a function, or the yield function's types cannot be written (write the call seq(func(v T) bool { ...; return true }))"})
	return Next
}
