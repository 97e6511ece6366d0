package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/gnnlab/gnnlab/interp/internal/rt"
)

// Index checks with Go's message.
//
// yaegi indexes through reflect, whose panic says only "reflect: slice
// index out of range"; Go says "index out of range [5] with length 3". A
// check of its own in front of every index expression would slow loops
// several times (a compiled call per index costs yaegi about 0.5 µs), so
// the session checks only where it is cheap: an index expression of a
// slice, array, string or pointer to an array in a statement of a
// function that is not inside a loop (nor in a function literal inside
// one), whose operands are variables, constants and arithmetic on them,
// in a statement that calls no other function first (Go would run it
// before the index panicked). Such a statement gets, in front of it,
//
//	if uint(i) >= uint(len(s)) { __gnnlab_rt.IndexOut(i, len(s)) };
//
// which panics with Go's runtime error. An index in a loop, or one that
// does not qualify, still fails with yaegi's message (a runtime error
// "index out of range (reflect: slice index out of range)").

// indexGuards records the checks of the index expressions of the
// function bodies in n (see above). When n is a cell's statements, those
// are not checked: later rewrites rename variables there.
func (r *rewriter) indexGuards(n ast.Node) {
	if b, ok := n.(*ast.BlockStmt); ok {
		r.guardStmts(b.List, false, true)
		return
	}
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncDecl:
			if x.Body != nil && x.Type.TypeParams == nil && !genericRecv(x) {
				r.guardStmts(x.Body.List, false, false)
			}
			return false
		case *ast.FuncLit:
			r.guardStmts(x.Body.List, false, false)
			return false
		}
		return true
	})
}

// guardStmts checks the statements of a list; inLoop says the list is
// inside a loop of its function, where only function literals are
// looked at (their statements count as in the loop too), and top that it
// is in the cell's statements, where only function literals are.
func (r *rewriter) guardStmts(list []ast.Stmt, inLoop, top bool) {
	for _, st := range list {
		r.guardStmt(st, inLoop, top)
	}
}

func (r *rewriter) guardStmt(st ast.Stmt, inLoop, top bool) {
	lits := func(nodes ...ast.Node) {
		for _, n := range nodes {
			if n == nil || n == ast.Node((*ast.BlockStmt)(nil)) {
				continue
			}
			ast.Inspect(n, func(x ast.Node) bool {
				if lit, ok := x.(*ast.FuncLit); ok {
					r.guardStmts(lit.Body.List, inLoop, false)
					return false
				}
				return true
			})
		}
	}
	var exprs []ast.Node // the parts of st that it evaluates at once
	var lhs []ast.Expr
	switch s := st.(type) {
	case *ast.ExprStmt:
		exprs = []ast.Node{s.X}
	case *ast.AssignStmt:
		for _, e := range s.Rhs {
			exprs = append(exprs, e)
		}
		if s.Tok != token.DEFINE {
			lhs = s.Lhs
		}
	case *ast.ReturnStmt:
		for _, e := range s.Results {
			exprs = append(exprs, e)
		}
	case *ast.IncDecStmt:
		lhs = []ast.Expr{s.X}
	case *ast.DeclStmt:
		exprs = []ast.Node{s}
	case *ast.IfStmt:
		if s.Init == nil {
			exprs = []ast.Node{s.Cond}
		}
		lits(s.Init, s.Cond)
		r.guardStmts(s.Body.List, inLoop, top)
		if s.Else != nil {
			r.guardStmt(s.Else, inLoop, top)
		}
	case *ast.SwitchStmt:
		if s.Init == nil && s.Tag != nil {
			exprs = []ast.Node{s.Tag}
		}
		lits(s.Init, s.Tag)
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			for _, e := range cc.List {
				lits(e)
			}
			r.guardStmts(cc.Body, inLoop, top)
		}
	case *ast.TypeSwitchStmt:
		lits(s.Init, s.Assign)
		for _, c := range s.Body.List {
			r.guardStmts(c.(*ast.CaseClause).Body, inLoop, top)
		}
	case *ast.SelectStmt:
		for _, c := range s.Body.List {
			cc := c.(*ast.CommClause)
			lits(cc.Comm)
			r.guardStmts(cc.Body, inLoop, top)
		}
	case *ast.BlockStmt:
		r.guardStmts(s.List, inLoop, top)
	case *ast.LabeledStmt:
		r.guardStmt(s.Stmt, inLoop, top)
	case *ast.ForStmt:
		lits(s.Init, s.Cond, s.Post)
		r.guardStmts(s.Body.List, true, top)
	case *ast.RangeStmt:
		lits(s.X)
		r.guardStmts(s.Body.List, true, top)
	default:
		lits(st) // go, defer, send...
	}
	switch st.(type) {
	case *ast.ExprStmt, *ast.AssignStmt, *ast.ReturnStmt, *ast.IncDecStmt, *ast.DeclStmt:
		lits(st)
	}
	if inLoop || top || (len(exprs) == 0 && len(lhs) == 0) {
		return
	}
	// Calls and receives in st that are not around an index expression
	// run before Go checks it.
	var effects []ast.Node
	for _, n := range append(exprs, exprNodes(lhs)...) {
		ast.Inspect(n, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if !r.pureCall(x) {
					effects = append(effects, x)
				}
			case *ast.UnaryExpr:
				if x.Op == token.ARROW {
					effects = append(effects, x)
				}
			}
			return true
		})
	}
	var guards []string
	check := func(n ast.Node, assigned bool) {
		// In post-order: an operand's own indexes are checked first.
		var stack []ast.Node
		ast.Inspect(n, func(x ast.Node) bool {
			if x == nil {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if ix, ok := top.(*ast.IndexExpr); ok {
					if g, ok := r.indexGuard(ix, st, effects, assigned); ok {
						guards = append(guards, g)
					}
				}
				return true
			}
			if _, ok := x.(*ast.FuncLit); ok {
				return false
			}
			stack = append(stack, x)
			return true
		})
	}
	for _, n := range exprs {
		check(n, false)
	}
	for _, e := range lhs {
		check(e, true)
	}
	if len(guards) == 0 {
		return
	}
	text := ""
	for _, g := range guards {
		text += g + "; "
	}
	r.ed.Insert(st.Pos(), text, false)
}

func exprNodes(es []ast.Expr) []ast.Node {
	var ns []ast.Node
	for _, e := range es {
		ns = append(ns, e)
	}
	return ns
}

// pureCall reports whether call is a builtin len or cap, or a conversion.
func (r *rewriter) pureCall(call *ast.CallExpr) bool {
	if tv, ok := r.info.Types[call.Fun]; ok && tv.IsType() {
		return true
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		return r.isBuiltin(id, "len") || r.isBuiltin(id, "cap")
	}
	return false
}

// indexGuard returns the check of x, an index expression of statement
// st, when x qualifies (see above). assigned says x is assigned to, when
// Go checks it after evaluating the whole right-hand side.
func (r *rewriter) indexGuard(x *ast.IndexExpr, st ast.Stmt, effects []ast.Node, assigned bool) (string, bool) {
	t := r.info.TypeOf(x.X)
	if t == nil {
		return "", false
	}
	array := false
	switch u := t.Underlying().(type) {
	case *types.Slice:
	case *types.Array:
		array = true
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); !ok {
			return "", false
		}
		array = true
	case *types.Basic:
		if u.Info()&types.IsString == 0 {
			return "", false
		}
	default:
		return "", false
	}
	it, ok := r.info.Types[x.Index]
	if !ok || it.Type == nil {
		return "", false
	}
	if b, ok := it.Type.Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
		return "", false
	}
	if it.Value != nil && (array || r.info.Types[x.X].Value != nil) {
		return "", false // go/types checked it
	}
	if !r.simpleOperand(x.X, st, true) || !r.simpleOperand(x.Index, st, false) {
		return "", false
	}
	for _, e := range effects {
		inside := e.Pos() <= x.Pos() && x.End() <= e.End()
		if assigned || !inside {
			return "", false
		}
	}
	s := r.ed.Inner(x.X.Pos(), x.X.End())
	i := r.ed.Inner(x.Index.Pos(), x.Index.End())
	return "if uint(" + i + ") >= uint(len(" + s + ")) { " + rt.IndexOut + "(" + i + ", len(" + s + ")) }", true
}

// simpleOperand reports whether e reads only variables declared before
// st, constants and fields, with arithmetic, len and cap (indexable:
// also index expressions of such operands), so that evaluating it again
// in front of st gives the same value and does nothing else.
func (r *rewriter) simpleOperand(e ast.Expr, st ast.Stmt, indexable bool) bool {
	if tv, ok := r.info.Types[e]; ok && tv.Value != nil {
		return true
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		return r.simpleOperand(x.X, st, indexable)
	case *ast.Ident:
		v, ok := r.info.Uses[x].(*types.Var)
		return ok && (v.Parent() == v.Pkg().Scope() || v.Pos() < st.Pos())
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			if _, pkg := r.info.Uses[id].(*types.PkgName); pkg {
				// Not one of a basic type, which packageVar rewrites.
				v, isVar := r.info.Uses[x.Sel].(*types.Var)
				if !isVar {
					return false
				}
				_, basic := v.Type().Underlying().(*types.Basic)
				return !basic
			}
		}
		s, ok := r.info.Selections[x]
		if !ok || s.Kind() != types.FieldVal {
			return false
		}
		if s.Indirect() {
			return false // a nil pointer panics first
		}
		return r.simpleOperand(x.X, st, indexable)
	case *ast.BinaryExpr:
		switch x.Op {
		case token.ADD, token.SUB, token.MUL, token.AND, token.OR, token.XOR:
			return r.simpleOperand(x.X, st, false) && r.simpleOperand(x.Y, st, false)
		}
	case *ast.UnaryExpr:
		return x.Op == token.SUB && r.simpleOperand(x.X, st, false)
	case *ast.CallExpr:
		id, ok := ast.Unparen(x.Fun).(*ast.Ident)
		return ok && len(x.Args) == 1 && (r.isBuiltin(id, "len") || r.isBuiltin(id, "cap")) && r.simpleOperand(x.Args[0], st, true)
	case *ast.IndexExpr:
		return indexable && r.simpleOperand(x.X, st, true) && r.simpleOperand(x.Index, st, false)
	}
	return false
}

// Inner is the edited text of [from, to) without the insertions at its
// ends, which belong to an expression around it (__gnnlab_aserr(vals[0])
// inserts at the start of vals).
func (e *Editor) Inner(from, to token.Pos) string {
	a, b := e.Off(from), e.Off(to)
	c := *e
	c.edits = nil
	for _, ed := range e.edits {
		if ed.start == ed.end && (ed.start == a || ed.start == b) {
			continue
		}
		c.edits = append(c.edits, ed)
	}
	return c.Text(from, to, false)
}
