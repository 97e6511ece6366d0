package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/rt"
)

// Select statements of functions, which yaegi ran over one set of cases
// per statement, shared by the goroutines in it: the pass "selects".

// selects is the pass "selects": each select statement in the body of a
// function declaration or literal becomes a switch on the clause that
// the runtime's Select chose over cases built per call. The top level of
// a cell keeps yaegi's select (one goroutine runs it), and so does a
// generic function with its literals. It runs after golits, so that the
// operands it moves into the switch carry golits' renames of the
// variables a go statement's literal captures; a literal that
// looplitargs moved keeps yaegi's select (its copy is the text as it was
// then).
func (r *rewriter) selects(root ast.Node) {
	ast.Inspect(root, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch f := n.(type) {
		case *ast.FuncDecl:
			if f.Type.TypeParams != nil || genericRecv(f) {
				// reflect.Set: value of type interface {} is not
				// assignable to type string (a T received in yaegi's
				// instance): a generic function keeps yaegi's select.
				return false
			}
			body = f.Body
		case *ast.FuncLit:
			body = f.Body
		default:
			return true
		}
		if body == nil {
			return false
		}
		ast.Inspect(body, func(m ast.Node) bool {
			switch s := m.(type) {
			case *ast.FuncLit:
				return false // the outer walk reaches it
			case *ast.SelectStmt:
				r.selectStmt(s)
			}
			return true
		})
		return true
	})
}

// selectStmt rewrites
//
//	select {
//	case v, ok := <-a: A
//	case b <- x:       B
//	default:           D
//	}
//
// as
//
//	switch i, r, o := __gnnlab_rt.Select("rsd", a, b, x); i {
//	case 0: var v T; if r != nil { v = r.(T) }; ok := o; A
//	case 1: B
//	case 2: D
//	}
//
// keeping the bodies (and their break, continue and return) in place;
// the runtime's Select returns -1, no clause, to an interrupted cell. A
// select whose received type has no name here, or on a channel of the
// cells' interface type (yaegiIface), is left as it is.
func (r *rewriter) selectStmt(s *ast.SelectStmt) {
	if len(s.Body.List) == 0 || r.editedIn(s.Select, s.Body.Lbrace+1, true, "") {
		return
	}
	iv, rv, ov := r.fresh("si"), r.fresh("sr"), r.fresh("so")
	usesR, usesO := false, false
	var kinds strings.Builder
	var args []string
	heads := make([]string, len(s.Body.List))
	text := func(e ast.Expr) string { return r.ed.Text(e.Pos(), e.End(), false) }
	for k, st := range s.Body.List {
		cl, ok := st.(*ast.CommClause)
		if !ok {
			return
		}
		if r.editedIn(cl.Case, cl.Colon+1, true, "") {
			return // an earlier pass rewrote part of the clause and more
		}
		head := "case " + strconv.Itoa(k) + ":"
		switch c := cl.Comm.(type) {
		case nil:
			kinds.WriteByte('d')
		case *ast.SendStmt:
			if r.yaegiIface(c.Chan) {
				return
			}
			kinds.WriteByte('s')
			args = append(args, text(c.Chan), text(c.Value))
		case *ast.ExprStmt:
			u, ok := ast.Unparen(c.X).(*ast.UnaryExpr)
			if !ok || u.Op != token.ARROW || r.yaegiIface(u.X) {
				return
			}
			kinds.WriteByte('r')
			args = append(args, text(u.X))
		case *ast.AssignStmt:
			if len(c.Rhs) != 1 || len(c.Lhs) == 0 || len(c.Lhs) > 2 {
				return
			}
			u, ok := ast.Unparen(c.Rhs[0]).(*ast.UnaryExpr)
			if !ok || u.Op != token.ARROW {
				return
			}
			tv, ok := r.info.Types[u.X]
			if !ok || tv.Type == nil {
				return
			}
			ch, ok := tv.Type.Underlying().(*types.Chan)
			if !ok || r.yaegiIface(u.X) {
				return
			}
			t, ok := typeText(ch.Elem(), r.names)
			if !ok {
				return
			}
			kinds.WriteByte('r')
			args = append(args, text(u.X))
			var lhs, rhs, defs []string
			for j, e := range c.Lhs {
				if id, isID := e.(*ast.Ident); isID && id.Name == "_" {
					continue
				}
				val := ov
				if j == 0 {
					usesR = true
					// yaegi failed on a nil interface asserted with comma-ok.
					// An empty interface takes the value as it is (yaegi's
					// assertion to any failed: nil is not any).
					conv := rv + ".(" + t + ")"
					if it, isIface := ch.Elem().Underlying().(*types.Interface); isIface && it.Empty() {
						conv = rv
					}
					get := func(v string) string {
						return " var " + v + " " + t + "; if " + rv + " != nil { " + v + " = " + conv + " };"
					}
					if c.Tok == token.DEFINE {
						defs = append(defs, get(text(e)))
						continue
					}
					val = r.fresh("sv")
					head += get(val)
				} else {
					usesO = true
				}
				if c.Tok == token.DEFINE {
					defs = append(defs, " "+text(e)+" := "+val+";")
				} else {
					lhs, rhs = append(lhs, text(e)), append(rhs, val)
				}
			}
			if len(lhs) > 0 {
				head += " " + strings.Join(lhs, ", ") + " = " + strings.Join(rhs, ", ") + ";"
			}
			head += strings.Join(defs, "")
		default:
			return
		}
		heads[k] = head
	}
	if !usesR {
		rv = "_"
	}
	if !usesO {
		ov = "_"
	}
	argText := ""
	if len(args) > 0 {
		argText = ", " + strings.Join(args, ", ")
	}
	r.ed.Replace(s.Select, s.Body.Lbrace+1, "switch "+iv+", "+rv+", "+ov+" := "+rt.Select+"("+strconv.Quote(kinds.String())+argText+"); "+iv+" {")
	for k, st := range s.Body.List {
		cl := st.(*ast.CommClause)
		r.ed.Replace(cl.Case, cl.Colon+1, heads[k])
	}
}

// yaegiIface reports whether the channel ch has an element type that
// yaegi keeps in its own wrapper: an interface with methods that is not
// a compiled package's (type shape interface{ Area() float64 } of a
// cell). Its values did not pass through the runtime's Select (reflect.Set: value
// of type interface {} is not assignable to type interp.valueInterface),
// so the select keeps yaegi's. An unknown type counts as one.
func (r *rewriter) yaegiIface(ch ast.Expr) bool {
	tv, ok := r.info.Types[ch]
	if !ok || tv.Type == nil {
		return true
	}
	c, ok := tv.Type.Underlying().(*types.Chan)
	if !ok {
		return true
	}
	it, ok := c.Elem().Underlying().(*types.Interface)
	if !ok || it.Empty() {
		return false
	}
	n, named := types.Unalias(c.Elem()).(*types.Named)
	if !named {
		return true
	}
	pkg := n.Obj().Pkg()
	return pkg == nil && n.Obj().Name() != "error" || pkg != nil && pkg.Path() == "main"
}
