package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// Per-iteration loop variables (Go 1.22).
//
// yaegi gives the variables that a for statement defines one variable for
// the whole loop, as Go did before 1.22: closures created in the loop and
// pointers taken to the variable all see its last value. A variable that
// the loop body defines is new on each iteration in yaegi too, so a loop
// whose variables are captured (used in a function literal or their
// address taken) gets a copy of each at the top of its body:
//
//	for i := 0; i < n; i++ { body }
//	for __gnnlab_lv1 := 0; __gnnlab_lv1 < n; __gnnlab_lv1++ { i := __gnnlab_lv1; body }
//
// and, when the body assigns the variable, the copy is written back before
// the next iteration (at the end of the body and at each continue of this
// loop), as Go copies the variable into the next iteration's. A range
// statement's variables are copied the same way, without the write back.
// The copy has a new name rather than i := i because yaegi reads the new,
// zero i on the right of i := i in a block at the top level of a cell.

// loopVars returns the objects of the variables that the identifiers
// define, in order (nil for blank or unknown ones).
func (r *rewriter) loopVars(ids []ast.Expr) []types.Object {
	objs := make([]types.Object, len(ids))
	for k, e := range ids {
		if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
			objs[k] = r.info.Defs[id]
		}
	}
	return objs
}

// captured reports whether n uses one of objs in a function literal or
// takes its address, and whether it assigns one of them.
func (r *rewriter) captured(n ast.Node, objs []types.Object) (captured, assigned bool) {
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return false
		}
		obj := r.info.Uses[id]
		for _, o := range objs {
			if o != nil && obj == o {
				return true
			}
		}
		return false
	}
	var walk func(n ast.Node, inLit bool)
	walk = func(n ast.Node, inLit bool) {
		ast.Inspect(n, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.FuncLit:
				if !inLit {
					walk(x.Body, true)
					return false
				}
			case *ast.Ident:
				if inLit && is(x) {
					captured = true
				}
			case *ast.UnaryExpr:
				if x.Op == token.AND && is(x.X) {
					captured, assigned = true, true
				}
			case *ast.AssignStmt:
				for _, l := range x.Lhs {
					assigned = assigned || (x.Tok != token.DEFINE && is(l))
				}
			case *ast.IncDecStmt:
				assigned = assigned || is(x.X)
			}
			return true
		})
	}
	walk(n, false)
	return captured, assigned
}

// forLoopVars gives a three-clause loop whose variables are captured a
// copy of them per iteration (see above).
func (r *rewriter) forLoopVars(x *ast.ForStmt) {
	init, ok := x.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE {
		return
	}
	objs := r.loopVars(init.Lhs)
	captured, assigned := r.captured(x.Body, objs)
	if !captured {
		return
	}
	renamed := map[types.Object]string{}
	var copies, back []string
	for k, o := range objs {
		if o == nil {
			continue
		}
		lv := r.fresh("lv")
		renamed[o] = lv
		id := init.Lhs[k].(*ast.Ident)
		r.ed.Replace(id.Pos(), id.End(), lv)
		copies = append(copies, id.Name+" := "+lv+";")
		back = append(back, lv+" = "+id.Name+";")
	}
	// The loop's own clauses use the renamed variables.
	for _, n := range []ast.Node{x.Cond, x.Post} {
		if n == nil {
			continue
		}
		ast.Inspect(n, func(m ast.Node) bool {
			if id, ok := m.(*ast.Ident); ok {
				if lv, ok := renamed[r.info.Uses[id]]; ok {
					r.ed.Replace(id.Pos(), id.End(), lv)
				}
			}
			return true
		})
	}
	r.ed.Insert(x.Body.Lbrace+1, " "+strings.Join(copies, " "), false)
	if !assigned {
		return
	}
	wb := strings.Join(back, " ")
	r.ed.Insert(x.Body.Rbrace, "; "+wb+" ", false)
	for _, c := range r.continuesOf(x) {
		r.ed.Insert(c.Pos(), "{ "+wb+" ", false)
		r.ed.Insert(c.End(), " }", false)
	}
}

// continuesOf returns the continue statements that continue loop x.
func (r *rewriter) continuesOf(x *ast.ForStmt) []*ast.BranchStmt {
	label := ""
	if r.labels != nil {
		label = r.labels[x]
	}
	var out []*ast.BranchStmt
	var walk func(n ast.Node, nested bool)
	walk = func(n ast.Node, nested bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt:
				if m != x {
					walk(m.Body, true)
					return false
				}
			case *ast.RangeStmt:
				walk(m.Body, true)
				return false
			case *ast.BranchStmt:
				if m.Tok == token.CONTINUE && ((m.Label == nil && !nested) || (m.Label != nil && m.Label.Name == label && label != "")) {
					out = append(out, m)
				}
			}
			return true
		})
	}
	walk(x.Body, false)
	return out
}

// rangeLoopVars gives a range statement whose variables are captured a
// copy of them per iteration. It reports false when it made no change.
func (r *rewriter) rangeLoopVars(x *ast.RangeStmt) bool {
	if x.Tok != token.DEFINE {
		return false
	}
	objs := r.loopVars([]ast.Expr{x.Key, x.Value})
	if captured, _ := r.captured(x.Body, objs); !captured {
		return false
	}
	var copies []string
	for k, e := range []ast.Expr{x.Key, x.Value} {
		if objs[k] == nil {
			continue
		}
		id := e.(*ast.Ident)
		lv := r.fresh("lv")
		r.ed.Replace(id.Pos(), id.End(), lv)
		copies = append(copies, id.Name+" := "+lv+";")
	}
	r.ed.Insert(x.Body.Lbrace+1, " "+strings.Join(copies, " "), false)
	return true
}

// rangeIndexed rewrites a range over a pointer to an array, and a range
// with a value over a slice or array of channels (for _, c := range chs),
// to a three-clause loop that indexes a copy of the operand:
//
//	for i, s := 0, chs; i < len(s); i++ { _, c := i, s[i]; ... }
//
// yaegi panicked on both before the body ran (reflect: call of
// reflect.Value.Elem on array Value; reflect: call of reflect.Value.Len
// on int Value). The variables are defined in the body, so they are per
// iteration. It reports whether it rewrote x.
func (r *rewriter) rangeIndexed(x *ast.RangeStmt) bool {
	t := r.info.TypeOf(x.X)
	if t == nil {
		return false
	}
	value := x.Value
	if value != nil && isBlank(value) {
		value = nil
	}
	u := t.Underlying()
	ptr := false
	if p, ok := u.(*types.Pointer); ok {
		u = p.Elem().Underlying()
		if _, isArray := u.(*types.Array); !isArray {
			return false
		}
		ptr = true
	}
	var elem types.Type
	switch u := u.(type) {
	case *types.Slice:
		elem = u.Elem()
	case *types.Array:
		elem = u.Elem()
	default:
		return false
	}
	if _, ch := elem.Underlying().(*types.Chan); !ptr && !(ch && value != nil) {
		return false
	}
	text := func(e ast.Expr) string { return r.ed.Text(e.Pos(), e.End(), false) }
	i, s := r.fresh("i"), r.fresh("s")
	var vars string
	switch {
	case value != nil:
		key := "_"
		if x.Key != nil {
			key = text(x.Key)
		}
		vars = " " + key + ", " + text(value) + " " + x.Tok.String() + " " + i + ", " + s + "[" + i + "];"
	case x.Key != nil && !isBlank(x.Key):
		vars = " " + text(x.Key) + " " + x.Tok.String() + " " + i + ";"
	}
	r.ed.Replace(x.For, x.Body.Lbrace+1, "for "+i+", "+s+" := 0, "+text(x.X)+"; "+i+" < len("+s+"); "+i+"++ {"+vars)
	return true
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// loopLitArgs moves a function literal that is an argument of a call
// statement in the body of a loop (wg.Go(func() { ... }), g.Go(...)) to
// a variable defined just before the statement:
//
//	__gnnlab_f1 := func() { ... }; wg.Go(__gnnlab_f1)
//
// yaegi's literal passed straight to a compiled function that kept it
// and ran it later (l.PushBack(func() ...), wg.Go(func() {...})) saw the
// variables of the loop's last iteration; a literal held in a variable
// sees its own. Creating a literal has no
// effects, so evaluating it before the other arguments changes nothing
// else. A literal that holds a go statement stays (goLits, which runs
// later, rewrites it where it is). Only statements of a block or a case (not a for statement's
// init or post, not labelled ones) are rewritten; the literal's text
// moves with the edits made inside it so far.
func (r *rewriter) loopLitArgs(n ast.Node) {
	var stmts []ast.Stmt
	var walk func(n ast.Node, inLoop bool)
	walk = func(n ast.Node, inLoop bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.ForStmt:
				walk(m.Body, true)
				return false
			case *ast.RangeStmt:
				walk(m.Body, true)
				return false
			case *ast.FuncLit:
				walk(m.Body, false)
				return false
			}
			list := stmtList(m)
			if inLoop {
				for _, st := range list {
					if es, ok := st.(*ast.ExprStmt); ok {
						if _, ok := es.X.(*ast.CallExpr); ok {
							stmts = append(stmts, es)
						}
					}
				}
			}
			return true
		})
	}
	walk(n, false)
	for _, st := range stmts {
		call := st.(*ast.ExprStmt).X.(*ast.CallExpr)
		var defs []string
		for _, a := range call.Args {
			lit, ok := a.(*ast.FuncLit)
			if !ok || holdsGo(lit) {
				continue // goLits rewrites go statements in place
			}
			name := r.fresh("f")
			defs = append(defs, name+" := "+r.ed.Text(lit.Pos(), lit.End(), false)+";")
			r.ed.Replace(lit.Pos(), lit.End(), name)
		}
		if len(defs) > 0 {
			r.ed.Insert(st.Pos(), strings.Join(defs, " ")+" ", false)
		}
	}
}

func holdsGo(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		_, g := m.(*ast.GoStmt)
		found = found || g
		return !found
	})
	return found
}

// rangeIndexedPass is the pass "rangeindexed": a range statement it
// rewrites is done.
func rangeIndexedPass(r *rewriter, n ast.Node) Visit {
	x, t := r.rangeOver(n)
	if t == nil {
		return Next
	}
	switch t.Underlying().(type) {
	case *types.Basic, *types.Signature:
		return Next
	}
	if r.rangeIndexed(x) {
		return Done
	}
	return Next
}

// loopVarsPass is the pass "loopvars".
func loopVarsPass(r *rewriter, n ast.Node) Visit {
	switch x := n.(type) {
	case *ast.ForStmt:
		r.forLoopVars(x)
	case *ast.RangeStmt:
		t := r.rangeType(x)
		if t == nil {
			return Next
		}
		switch u := t.Underlying().(type) {
		case *types.Basic:
			if u.Info()&types.IsInteger == 0 {
				r.rangeLoopVars(x)
			}
		case *types.Signature:
		default:
			r.rangeLoopVars(x)
		}
	}
	return Next
}
