package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// Struct types that embed an interface (struct{ sort.Interface }).
//
// yaegi makes struct types with reflect.StructOf, which panics on an
// embedded field of an interface type with methods ("StructOf does not
// support methods of embedded interfaces"). The session names such a
// field by its embedded name (Interface sort.Interface), so x.Interface
// and composite literals stay as they were, and declares, after the type,
// a method with a value receiver for each method that the field promoted
// and the type does not declare itself:
//
//	func (__gnnlab_e1 reverse) Len() int { return __gnnlab_e1.Interface.Len() }
//
// A generic type, a type declared in a function (which cannot have
// methods) or a method whose signature cannot be written is left as it
// was.
func (r *rewriter) embeddedIfaces(decl *ast.GenDecl) {
	var methods []string
	for _, sp := range decl.Specs {
		ts, ok := sp.(*ast.TypeSpec)
		if !ok || ts.TypeParams != nil {
			continue
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		tn, ok := r.info.Defs[ts.Name].(*types.TypeName)
		if !ok || tn.Pkg() == nil || tn.Parent() != tn.Pkg().Scope() {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		fields := map[int]*ast.Field{} // embedded interfaces by field index
		k := 0
		for _, f := range st.Fields.List {
			if len(f.Names) > 0 {
				k += len(f.Names)
				continue
			}
			if it, ok := r.info.TypeOf(f.Type).Underlying().(*types.Interface); ok && it.NumMethods() > 0 {
				fields[k] = f
			}
			k++
		}
		if len(fields) == 0 {
			continue
		}
		recv := r.fresh("e")
		var forward, names []string
		ms := types.NewMethodSet(types.NewPointer(named))
		for i := range ms.Len() {
			sel := ms.At(i)
			f, ok := fields[sel.Index()[0]]
			if !ok || len(sel.Index()) != 2 {
				continue
			}
			m, ok := forwardMethod(recv, ts.Name.Name, embeddedName(f.Type), sel.Obj().(*types.Func), r.names)
			if !ok {
				forward = nil
				break
			}
			forward = append(forward, m)
			names = append(names, ts.Name.Name+"."+sel.Obj().Name())
		}
		if forward == nil {
			continue
		}
		for _, f := range fields {
			r.ed.Insert(f.Type.Pos(), embeddedName(f.Type)+" ", false)
		}
		methods = append(methods, forward...)
		r.forwards = append(r.forwards, names...)
	}
	if len(methods) > 0 {
		r.ed.Insert(decl.End(), "; "+strings.Join(methods, "; "), false)
	}
}

// embeddedName is the field name of an embedded field of type x.
func embeddedName(x ast.Expr) string {
	switch t := x.(type) {
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.IndexExpr:
		return embeddedName(t.X)
	case *ast.IndexListExpr:
		return embeddedName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}

// forwardMethod is the declaration of method m of type typ that calls m
// of the field.
func forwardMethod(recv, typ, field string, m *types.Func, names map[string]string) (string, bool) {
	sig := m.Type().(*types.Signature)
	var params, args []string
	for i := range sig.Params().Len() {
		t := sig.Params().At(i).Type()
		a := recv + "p" + strconv.Itoa(i)
		spread := ""
		if sig.Variadic() && i == sig.Params().Len()-1 {
			t = t.(*types.Slice).Elem()
			spread = "..."
		}
		text, ok := typeText(t, names)
		if !ok {
			return "", false
		}
		params = append(params, a+" "+spread+text)
		args = append(args, a+spread)
	}
	var results []string
	for i := range sig.Results().Len() {
		text, ok := typeText(sig.Results().At(i).Type(), names)
		if !ok {
			return "", false
		}
		results = append(results, text)
	}
	if m.Name() == "_" || !m.Exported() && m.Pkg() != nil && m.Pkg().Path() != "main" {
		return "", false // an unexported method of another package
	}
	call := recv + "." + field + "." + m.Name() + "(" + strings.Join(args, ", ") + ")"
	body := call
	if len(results) > 0 {
		body = "return " + call
	}
	return "func (" + recv + " " + typ + ") " + m.Name() + "(" + strings.Join(params, ", ") + ") (" + strings.Join(results, ", ") + ") { " + body + " }", true
}

// embeddedIfacesPass is the pass "embeddedifaces".
func embeddedIfacesPass(r *rewriter, n ast.Node) Visit {
	if x, ok := n.(*ast.GenDecl); ok && x.Tok == token.TYPE {
		r.embeddedIfaces(x)
	}
	return Next
}
