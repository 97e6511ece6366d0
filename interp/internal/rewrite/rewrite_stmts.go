package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/symtypes"
)

// The pass "statements": top-level definitions that yaegi's global scope
// mishandles (see statements).

// statements records the rewrites of the cell's top-level statements that
// work around yaegi's handling of the global scope, where the statements
// of a cell run:
//
//   - a definition from several results (a, b := f(), v, ok := m[k],
//     switch y := x.(type)) nested in a block is not compiled ("undefined:
//     a"), so a compound statement holding one runs in a function literal
//     (func() { ... }()), where it is;
//   - a top-level comma-ok definition (v, ok := m[k], x.(T), <-ch)
//     panics in yaegi ("nil type"), so its variables are declared first:
//     var v V; var ok bool; v, ok = m[k];
//   - the type of a top-level x := s[i] (s a slice of a compiled package or
//     a string) is not inferred ("constant definition loop"), so it is
//     written: var x T = s[i].
func (r *rewriter) statements(body *ast.BlockStmt, names map[string]string) {
	for _, st := range body.List {
		if r.hoisted[st] {
			continue
		}
		switch st := st.(type) {
		case *ast.AssignStmt:
			switch {
			case st.Tok != token.DEFINE:
			case r.redefine(st, names):
			case len(st.Lhs) == len(st.Rhs):
				r.typedDefine(st.Lhs, st.Rhs, st.Lhs[0].Pos(), st.Rhs[0].Pos(), names)
			case len(st.Lhs) == 2 && isCommaOk(st.Rhs[0]):
				r.commaOk(st, names)
			}
		case *ast.DeclStmt:
			if gd, ok := st.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				for _, sp := range gd.Specs {
					vs := sp.(*ast.ValueSpec)
					if vs.Type == nil && len(vs.Names) == len(vs.Values) {
						end := vs.Names[len(vs.Names)-1].End()
						r.typedDefine(namesOf(vs.Names), vs.Values, end, end, names)
					}
				}
			}
		case *ast.ExprStmt, *ast.IncDecStmt, *ast.SendStmt, *ast.GoStmt, *ast.DeferStmt, *ast.EmptyStmt:
		default:
			if needsFrame(st) {
				r.frame(st)
			}
		}
	}
}

func isCommaOk(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.IndexExpr, *ast.TypeAssertExpr:
		return true
	case *ast.UnaryExpr:
		return e.Op == token.ARROW
	}
	return false
}

// redefine rewrites a top-level definition of a session variable with
// the type it has (b := b + 1, f, b := step(b) in a later cell) into an
// assignment of it, the other new variables declared first: yaegi made
// the new, zero b when it compiled the cell, before b + 1 or an earlier
// statement of the cell read b. It reports whether it did.
func (r *rewriter) redefine(st *ast.AssignStmt, names map[string]string) bool {
	decl, again := "", false
	for _, e := range st.Lhs {
		id, ok := e.(*ast.Ident)
		if !ok {
			return false
		}
		obj := r.info.Defs[id]
		if obj == nil {
			obj = r.info.Uses[id] // defined again in this cell
		}
		if id.Name == "_" || obj == nil {
			continue
		}
		if g, ok := r.globals[id.Name]; ok && g.IsValid() {
			gt, ok := symtypes.TypeOf(g.Type())
			if !ok || !types.Identical(gt, obj.Type()) {
				return false
			}
			again = true
			continue
		}
		if r.info.Defs[id] == nil {
			continue // assigned: defined earlier in this cell
		}
		t, ok := typeText(obj.Type(), names)
		if !ok {
			return false
		}
		decl += "var " + id.Name + " " + t + "; "
	}
	if !again {
		return false
	}
	r.ed.Replace(st.TokPos, st.TokPos+token.Pos(len(":=")), "=")
	r.ed.Insert(st.Pos(), decl, false)
	return true
}

// commaOk declares the new variables of v, ok := x before assigning them.
func (r *rewriter) commaOk(st *ast.AssignStmt, names map[string]string) {
	decl := ""
	for _, e := range st.Lhs {
		id, ok := e.(*ast.Ident)
		if !ok {
			return
		}
		obj := r.info.Defs[id]
		if id.Name == "_" || obj == nil {
			continue // blank, or assigned: x exists already
		}
		t, ok := typeText(obj.Type(), names)
		if !ok {
			return
		}
		decl += "var " + id.Name + " " + t + "; "
	}
	r.ed.Replace(st.TokPos, st.TokPos+token.Pos(len(":=")), "=")
	r.ed.Insert(st.Pos(), decl, false)
}

func namesOf(ids []*ast.Ident) []ast.Expr {
	out := make([]ast.Expr, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// typedDefine replaces [from, to) by "var a, b T = " (or inserts " T" in
// a var declaration, from == to) when a value of rhs indexes something
// and the types of the new variables are one writable type.
func (r *rewriter) typedDefine(lhs, rhs []ast.Expr, from, to token.Pos, names map[string]string) {
	indexes := false
	for _, e := range rhs {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.IndexExpr:
				if tv, ok := r.info.Types[n.X]; ok && tv.IsValue() {
					indexes = true
				}
			case *ast.CallExpr:
				// yaegi cannot type a global from a call of a generic
				// function (new(expr) calls one, rewrite_builtins.go).
				indexes = r.genericCall(n)
			}
			return !indexes
		})
	}
	if !indexes {
		return
	}
	lhsNames := map[string]bool{}
	text := ""
	for _, e := range lhs {
		id, ok := e.(*ast.Ident)
		if !ok || id.Name == "_" || r.info.Defs[id] == nil {
			return // an assignment to an existing variable
		}
		lhsNames[id.Name] = true
		t, ok := typeText(r.info.Defs[id].Type(), names)
		if !ok || (text != "" && t != text) {
			return
		}
		text = t
	}
	for _, e := range rhs {
		if refers(e, lhsNames) {
			return // x := x[0] reads an earlier x; var x = x[0] would not
		}
	}
	if from == to {
		r.ed.Insert(from, " "+text, false)
		return
	}
	parts := make([]string, len(lhs))
	for i, e := range lhs {
		parts[i] = e.(*ast.Ident).Name
	}
	r.ed.Replace(from, to, "var "+strings.Join(parts, ", ")+" "+text+" = ")
}

// genericCall reports whether call calls a generic function, or new with
// a value.
func (r *rewriter) genericCall(call *ast.CallExpr) bool {
	var id *ast.Ident
	switch f := callee(call).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return false
	}
	switch obj := r.info.Uses[id].(type) {
	case *types.Func:
		sig, _ := obj.Type().(*types.Signature)
		return sig != nil && sig.TypeParams().Len() > 0
	case *types.Builtin:
		if obj.Name() == "new" && len(call.Args) == 1 {
			tv := r.info.Types[call.Args[0]]
			return tv.IsValue()
		}
	}
	return false
}

// needsFrame reports whether a compound top-level statement defines
// variables from several results in a nested scope, and can run in a
// function literal: it holds no return, goto, or break and continue to a
// label outside it.
func needsFrame(st ast.Stmt) bool {
	labels := map[string]bool{}
	ast.Inspect(st, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			labels[l.Label.Name] = true
		}
		_, lit := n.(*ast.FuncLit)
		return !lit
	})
	need, can := false, true
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			need = need || (n.Tok == token.DEFINE && len(n.Lhs) > len(n.Rhs))
		case *ast.ValueSpec:
			need = need || (len(n.Names) > len(n.Values) && len(n.Values) > 0)
		case *ast.TypeSwitchStmt:
			// It binds a variable, or is given one (errorCases).
			need = true
		case *ast.ReturnStmt:
			can = false
		case *ast.BranchStmt:
			if n.Tok == token.GOTO || (n.Label != nil && !labels[n.Label.Name]) {
				can = false
			}
		}
		return can
	})
	return need && can
}

// frame runs st in a function literal, //line directives keeping the
// positions of st and of what follows it on its last line.
func (r *rewriter) frame(st ast.Stmt) {
	start, end := r.ed.fset.Position(st.Pos()), r.ed.fset.Position(st.End())
	r.ed.Insert(st.Pos(), "func() {\n//line "+CellFile+":"+strconv.Itoa(start.Line)+":"+strconv.Itoa(start.Column)+"\n", false)
	r.ed.Insert(st.End(), "\n}()\n//line "+CellFile+":"+strconv.Itoa(end.Line)+":"+strconv.Itoa(end.Column)+"\n", false)
}
