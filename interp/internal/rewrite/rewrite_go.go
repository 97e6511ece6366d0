package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// goFunc is a function the session declares for the literal of a go
// statement (see goLits).
type goFunc struct {
	name   string
	lit    *ast.FuncLit
	params string // the pointers to the captured variables, with a trailing ", " when the literal has parameters
	caps   map[*types.Var]bool
}

// goLits rewrites go statements that start a function literal,
//
//	go func(k int) { defer wg.Done(); sum += k }(i)
//
// into calls of a function declared for the literal, which is given
// pointers to the variables the literal captures:
//
//	go __gnnlab_go1(&wg, &sum, i)
//	func __gnnlab_go1(__gnnlab_p_wg *sync.WaitGroup, __gnnlab_p_sum *int, k int) { defer (*__gnnlab_p_wg).Done(); (*__gnnlab_p_sum) += k }
//
// The goroutine shares the variables as a closure would. yaegi calls a
// literal through a function that writes the literal's frame slot when
// it returns, while the next evaluation of the same literal (the next
// iteration of the loop that starts goroutines) reads that slot without
// a lock: a data race in the interpreter, which the race detector
// reports for the most ordinary Go (a WaitGroup of goroutines started in
// a loop). A declared function is called without it.
//
// A literal stays as it is when it uses a type or constant declared in
// a function, when the type of a captured variable cannot be written at
// package level, inside generic functions, or when another rewrite has
// edited one of the identifiers it captures. goLits runs after the other
// rewrites of n; goDecls returns the declared functions.
func (r *rewriter) goLits(n ast.Node) {
	if r.info == nil || len(r.undefined) > 0 {
		return
	}
	var stmts []*ast.GoStmt
	visit := func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncDecl:
			if x.Type.TypeParams != nil || genericRecv(x) {
				return false
			}
		case *ast.GoStmt:
			if _, ok := ast.Unparen(x.Call.Fun).(*ast.FuncLit); ok {
				stmts = append(stmts, x)
			}
		}
		return true
	}
	ast.Inspect(n, visit)
	// Outer statements first: an inner literal passes on the pointers an
	// enclosing one was given.
	var done []*goFunc
	for _, g := range stmts {
		var outer []*goFunc
		for _, f := range done {
			if g.Pos() >= f.lit.Pos() && g.End() <= f.lit.End() {
				outer = append(outer, f)
			}
		}
		if f := r.goLit(g, outer); f != nil {
			done = append(done, f)
		}
	}
	for _, f := range done {
		r.goFuncs = append(r.goFuncs, *f)
	}
}

func genericRecv(fd *ast.FuncDecl) bool {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return false
	}
	t := fd.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	switch t.(type) {
	case *ast.IndexExpr, *ast.IndexListExpr:
		return true
	}
	return false
}

func (r *rewriter) goLit(g *ast.GoStmt, outer []*goFunc) *goFunc {
	lit := ast.Unparen(g.Call.Fun).(*ast.FuncLit)
	inside := func(p token.Pos) bool { return p >= lit.Pos() && p < lit.End() }
	pkgLevel := func(o types.Object) bool {
		return o.Pkg() == nil || o.Parent() == nil || o.Parent() == o.Pkg().Scope() || o.Parent() == types.Universe
	}
	caps := map[*types.Var][]*ast.Ident{}
	ok := true
	ast.Inspect(lit, func(n ast.Node) bool {
		id, isID := n.(*ast.Ident)
		if !ok || !isID {
			return ok
		}
		switch o := r.info.Uses[id].(type) {
		case *types.Var:
			if o.IsField() || pkgLevel(o) || inside(o.Pos()) {
				return true
			}
			if r.deferParam(lit, id, o) {
				if _, ok := caps[o]; !ok {
					caps[o] = nil // read by the deferred call's arguments
				}
				return true
			}
			caps[o] = append(caps[o], id)
		case *types.Const, *types.TypeName:
			if !pkgLevel(o) && !inside(o.Pos()) {
				ok = false // declared in the enclosing function
			}
		}
		return true
	})
	if !ok || r.editedIn(lit.Pos(), lit.End(), true, "") {
		return nil
	}
	vars := make([]*types.Var, 0, len(caps))
	for v, ids := range caps {
		for _, id := range ids {
			if r.editedIn(id.Pos(), id.End(), false, capText(v)) {
				return nil
			}
		}
		vars = append(vars, v)
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].Pos() < vars[j].Pos() })
	var params, args []string
	for _, v := range vars {
		t, ok := typeText(v.Type(), r.names)
		if !ok {
			return nil
		}
		p := helperPrefix + "p_" + v.Name()
		params = append(params, p+" *"+t)
		arg := "&" + v.Name()
		for _, o := range outer {
			if o.caps[v] {
				arg = p // the enclosing function's own pointer
			}
		}
		args = append(args, arg)
	}
	var name string
	if r.seq != nil {
		*r.seq++
		name = helperPrefix + "go" + strconv.Itoa(*r.seq)
	} else {
		name = r.fresh("go")
	}
	f := &goFunc{name: name, lit: lit, params: strings.Join(params, ", "), caps: map[*types.Var]bool{}}
	for _, v := range vars {
		f.caps[v] = true
		for _, id := range caps[v] {
			if !r.editedIn(id.Pos(), id.End(), false, "") {
				r.ed.Replace(id.Pos(), id.End(), capText(v))
			}
		}
	}
	r.deferCallArgs(lit, f.caps)
	r.ed.Replace(lit.Pos(), lit.End(), name)
	if len(vars) > 0 {
		a := strings.Join(args, ", ")
		if len(g.Call.Args) > 0 {
			a += ", "
		}
		r.ed.Insert(g.Call.Lparen+1, a, false)
		if len(lit.Type.Params.List) > 0 {
			f.params += ", "
		}
	}
	return f
}

// deferParam reports whether id, inside the go statement's literal lit,
// names the variable v in a deferred literal to which deferredLit passed
// v: there id is the deferred literal's parameter, not the captured v.
func (r *rewriter) deferParam(lit *ast.FuncLit, id *ast.Ident, v *types.Var) bool {
	for _, d := range r.deferArgs {
		if d.lit.Pos() >= lit.Pos() && d.lit.End() <= lit.End() && d.param(id, v) {
			return true
		}
	}
	return false
}

// deferCallArgs has the arguments that deferredLit gave the deferred
// literals inside lit read the captured variables through their pointers
// (defer func(i int) {...}((*__gnnlab_p_i))).
func (r *rewriter) deferCallArgs(lit *ast.FuncLit, caps map[*types.Var]bool) {
	for _, d := range r.deferArgs {
		if d.lit.Pos() < lit.Pos() || d.lit.End() > lit.End() {
			continue
		}
		args := make([]string, len(d.vars))
		for i, v := range d.vars {
			args[i] = v.Name()
			if caps[v] {
				args[i] = capText(v)
			}
		}
		a, b := r.ed.Off(d.call.Lparen), r.ed.Off(d.call.Rparen+1)
		for i, e := range r.ed.edits {
			if e.start == a && e.end == b {
				r.ed.edits[i].text = "(" + strings.Join(args, ", ") + ")"
			}
		}
	}
}

// capText is what a use of a captured variable becomes in a function
// goLits declared.
func capText(v *types.Var) string { return "(*" + helperPrefix + "p_" + v.Name() + ")" }

// editedIn reports whether an edit replaces text that overlaps [from, to):
// edits that cover it do not count (an enclosing literal goLits moved),
// with inner neither do edits wholly inside it, nor, when same is not
// empty, an edit of the same range to same.
func (r *rewriter) editedIn(from, to token.Pos, inner bool, same string) bool {
	a, b := r.ed.Off(from), r.ed.Off(to)
	for _, e := range r.ed.edits {
		if e.start == e.end || e.end <= a || e.start >= b {
			continue
		}
		if e.start <= a && e.end >= b && (e.start < a || e.end > b) {
			continue // covering: an enclosing literal moved
		}
		if inner && e.start >= a && e.end <= b {
			continue
		}
		if same != "" && e.start == a && e.end == b && e.text == same {
			continue
		}
		return true
	}
	return false
}

// goDecls returns the declarations of the functions goLits made, as
// package-level source.
func (r *rewriter) goDecls() string {
	var b strings.Builder
	for _, f := range r.goFuncs {
		open := f.lit.Type.Params.Opening + 1
		b.WriteString(r.ed.Piece(open, f.lit.End(), "func "+f.name+"("+f.params, false))
	}
	return b.String()
}
