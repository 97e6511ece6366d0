package rewrite

import (
	"go/types"
	"strings"
)

// Interfaces implemented through promoted methods.
//
// yaegi's assertion of a value of an interpreted type to an interface
// (x.(Counter), case Counter) fails when the type has a method of the
// interface only through an embedded field (type ByVal struct{ inner },
// asserted as *ByVal), although the compiled HasMethods found the method
// set complete: the rewritten assertion answered false, and the case bound
// nil. The session's assertions of an interface then try, after yaegi's,
// an assertion to each type of the session that implements the interface
// through a promoted method; the value asserted to its concrete type
// converts to the interface in yaegi as an assignment does.

// promotedImpls returns the texts of the package-level types of the
// session, T or *T, that implement the interface t, itself a named type
// of the session, through at least one method promoted from an embedded
// field.
func (r *rewriter) promotedImpls(t types.Type) []string {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return nil
	}
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	scope := named.Obj().Pkg().Scope()
	var out []string
	for _, n := range scope.Names() {
		tn, ok := scope.Lookup(n).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		tt, ok := tn.Type().(*types.Named)
		if !ok || tt.TypeParams().Len() > 0 || types.IsInterface(tt) {
			continue
		}
		for _, c := range []types.Type{tt, types.NewPointer(tt)} {
			if !types.Implements(c, it) || !promotes(c, it) {
				continue
			}
			if text, ok := typeText(c, r.names); ok {
				out = append(out, text)
			}
		}
	}
	return out
}

// promotes reports whether one of the methods of it is promoted from an
// embedded field in the method set of t.
func promotes(t types.Type, it *types.Interface) bool {
	ms := types.NewMethodSet(t)
	for i := 0; i < it.NumMethods(); i++ {
		m := it.Method(i)
		if sel := ms.Lookup(m.Pkg(), m.Name()); sel != nil && len(sel.Index()) > 1 {
			return true
		}
	}
	return false
}

// promotedAsserts returns the statements that assert v to each of impls
// and, on success, run then with the name of the asserted value (then
// holding "\x00" where the name goes): if y, ok := v.(*ByVal); ok {
// return y, true }; ...
func (r *rewriter) promotedAsserts(v string, impls []string, then string) string {
	var b strings.Builder
	for _, text := range impls {
		y, ok := r.fresh("py"), r.fresh("pok")
		b.WriteString("if " + y + ", " + ok + " := " + v + ".(" + text + "); " + ok + " { " + strings.ReplaceAll(then, "\x00", y) + " }; ")
	}
	return b.String()
}
