package interp

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"
)

// Named non-struct types in fmt.
//
// yaegi gives a cell's named type of a non-struct kind (type ID int, type
// Scores []int) its underlying reflect type, so %T printed int, not
// main.ID. In a call of a fmt function with a constant format holding %T
// or %#v, an argument whose type holds such a type becomes
// __gnnlab_rt.Named("main.ID", x), which the fmt wrappers print as Go
// does (namedValue, fmtnames.go).

// fmtFuncs are the fmt functions with a format, by the format's index.
var fmtFuncs = map[string]int{"Printf": 0, "Sprintf": 0, "Errorf": 0, "Fprintf": 1, "Appendf": 1}

// printFuncs are the fmt functions that print their arguments, by the
// index of the first argument printed.
var printFuncs = map[string]int{"Print": 0, "Println": 0, "Sprint": 0, "Sprintln": 0, "Fprint": 1, "Fprintln": 1, "Printf": 1, "Sprintf": 1, "Errorf": 1, "Fprintf": 2, "Appendf": 2, "Append": 1, "Appendln": 1}

// fmtCall returns the name of the fmt function that call calls, or "".
func (r *rewriter) fmtCall(call *ast.CallExpr) string {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	if pn, ok := r.info.Uses[pkg].(*types.PkgName); !ok || pn.Imported().Path() != "fmt" {
		return ""
	}
	return sel.Sel.Name
}

// stringerArgs rewrites the arguments of a printing call that are slices
// or arrays of a session type with a String or Error method: yaegi gave fmt
// the bare elements ([0 1] for [Red Green]). The argument becomes
// func(s []Color) any { return __gnnlab_rt.Stringers(len(s), func(i int)
// __gnnlab_rt.Stringer { return s[i] }) }(x), a compiled slice of the
// elements as fmt.Stringer (or error) values.
func (r *rewriter) stringerArgs(call *ast.CallExpr, wrapped map[ast.Expr]bool) {
	k, ok := printFuncs[r.fmtCall(call)]
	if !ok || call.Ellipsis.IsValid() {
		return
	}
	for i, a := range call.Args {
		if i < k || wrapped[a] {
			continue
		}
		t := r.info.Types[a].Type
		if t == nil {
			continue
		}
		var elem types.Type
		switch u := t.Underlying().(type) {
		case *types.Slice:
			elem = u.Elem()
		case *types.Array:
			elem = u.Elem()
		default:
			continue
		}
		iface := stringerOf(elem)
		if iface == "" {
			continue
		}
		tt, ok := typeText(t, r.names)
		if !ok {
			continue
		}
		r.ed.insert(a.Pos(), "func(s "+tt+") any { return "+helperRT+"."+iface+"s(len(s), func(i int) "+helperRT+"."+iface+"Type { return s[i] }) }(", false)
		r.ed.insert(a.End(), ")", false)
	}
}

// stringerOf returns "Error" or "Stringer" when t is a type of the session
// (or a pointer to one) whose method set has Error or String, else "".
func stringerOf(t types.Type) string {
	base := t
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		base = p.Elem()
	}
	named, ok := types.Unalias(base).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != "main" || named.TypeParams().Len() > 0 {
		return ""
	}
	if _, ok := named.Underlying().(*types.Interface); ok {
		return ""
	}
	ms := types.NewMethodSet(t)
	for _, m := range []struct{ name, iface string }{{"Error", "Error"}, {"String", "Stringer"}} {
		if sel := ms.Lookup(nil, m.name); sel != nil {
			if sig, ok := sel.Type().(*types.Signature); ok && sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.String]) {
				return m.iface
			}
		}
	}
	return ""
}

// namedArgs records the rewrites of the arguments of call.
func (r *rewriter) namedArgs(call *ast.CallExpr) {
	wrapped := map[ast.Expr]bool{}
	defer r.stringerArgs(call, wrapped)
	k, ok := fmtFuncs[r.fmtCall(call)]
	if !ok || len(call.Args) <= k+1 {
		return
	}
	tv := r.info.Types[call.Args[k]]
	if tv.Value == nil || !strings.ContainsAny(tv.Value.ExactString(), "T#") {
		return
	}
	for _, a := range call.Args[k+1:] {
		t := r.info.Types[a].Type
		if t == nil || !hasNamedBasic(t, 0) {
			continue
		}
		wrapped[a] = true
		name := types.TypeString(t, func(p *types.Package) string { return p.Name() })
		r.ed.insert(a.Pos(), helperRT+".Named("+strconv.Quote(name)+", ", false)
		r.ed.insert(a.End(), ")", false)
	}
}

// hasNamedBasic reports whether t, not an interface, holds a named type of
// the session that is neither a struct nor an interface.
func hasNamedBasic(t types.Type, depth int) bool {
	if depth > 8 {
		return false
	}
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		if t.Obj().Pkg() == nil || t.Obj().Pkg().Path() != "main" || t.TypeParams().Len() > 0 {
			return false
		}
		switch t.Underlying().(type) {
		case *types.Struct, *types.Interface:
			return false
		}
		return true
	case *types.Pointer:
		return hasNamedBasic(t.Elem(), depth+1)
	case *types.Slice:
		return hasNamedBasic(t.Elem(), depth+1)
	case *types.Array:
		return hasNamedBasic(t.Elem(), depth+1)
	case *types.Map:
		return hasNamedBasic(t.Key(), depth+1) || hasNamedBasic(t.Elem(), depth+1)
	case *types.Chan:
		return hasNamedBasic(t.Elem(), depth+1)
	}
	return false
}
