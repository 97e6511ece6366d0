package rewrite

import (
	"go/ast"
	"go/types"
	"strings"
	"sync"

	"github.com/gnnlab/gnnlab/interp/internal/helpers"
)

// Generic functions of the standard library written out at the call.
//
// yaegi fails to call a closure that a generic function returns, and its
// generic append lost elements, so the functions of slices, maps and iter
// that return iterators, take them, or build slices (maps.Keys,
// slices.Sorted, slices.Clone, iter.Pull...) are not interpreted helpers
// (genericstd.go) but written out at each call as a function literal with
// the type arguments go/types inferred: maps.Keys(m) with m a
// map[string]int becomes
//
//	func(m map[string]int) func(func(string) bool) { return func(yield func(string) bool) { ... } }(m)
//
// The arguments keep their text and place. The functions are real Go, in
// internal/helpers/std/<pkg>/macros.go: go/types sees their signatures
// (macroDecls), and their bodies become the literals, with {0}, {1}... for
// the type arguments and {pkg} for the name by which the cell calls the
// package (helpers.MacroBodies).

// macroDecls are the signatures go/types sees, by package, beside the
// helpers of genericSrc (internal/helpers/std/<pkg>/macros.go, the bodies
// cut); their type parameters are the {k} of macroBodies.
var macroDecls = sync.OnceValue(helpers.MacroSources)

// macroBodies are the function literals that replace the callees, on
// one line (helpers.MacroBodies), with the names of the interpreted
// helpers they call (PFX) written as genericstd.go writes them.
var macroBodies = sync.OnceValue(func() map[string]string {
	m := helpers.MacroBodies()
	for name, body := range m {
		path := name[:strings.LastIndex(name, ".")]
		m[name] = strings.ReplaceAll(body, "PFX", "__gnnlab_"+path+"_")
	}
	return m
})

// macroCall writes out a call of a function of macroBodies; it reports
// whether it did.
func (r *rewriter) macroCall(call *ast.CallExpr) (bool, *unsupportedError) {
	sel, pkg, pn := r.pkgCallee(call)
	if pn == nil {
		return false, nil
	}
	name := pn.Imported().Path() + "." + sel.Sel.Name
	body, ok := macroBodies()[name]
	if !ok {
		return false, nil
	}
	inst, ok := r.info.Instances[sel.Sel]
	if !ok {
		return false, nil
	}
	for k := 0; k < inst.TypeArgs.Len(); k++ {
		t, ok := typeText(inst.TypeArgs.At(k), r.names)
		if !ok {
			return false, &unsupportedError{call.Pos(), name + " with a type argument of a package the cell did not import is not supported by the interpreter"}
		}
		body = strings.ReplaceAll(body, "{"+string(rune('0'+k))+"}", t)
	}
	body = strings.ReplaceAll(body, "{pkg}", pkg.Name)
	if strings.Contains(body, "__gnnlab_slices_") {
		if r.generic == nil {
			r.generic = map[string]bool{}
		}
		r.generic["slices"] = true
	}
	// One line, so that the positions after it stay where they were.
	r.ed.Replace(call.Fun.Pos(), call.Fun.End(), "("+body+")")
	return true, nil
}

// pkgCallee returns the callee of a call of pkg.F, or of an explicit
// instantiation pkg.F[T], with pkg an imported package: the selector, the
// package's identifier and its name; pn is nil for another call.
func (r *rewriter) pkgCallee(call *ast.CallExpr) (sel *ast.SelectorExpr, pkg *ast.Ident, pn *types.PkgName) {
	sel, ok := callee(call).(*ast.SelectorExpr)
	if !ok {
		return nil, nil, nil
	}
	pkg, ok = sel.X.(*ast.Ident)
	if !ok {
		return nil, nil, nil
	}
	pn, _ = r.info.Uses[pkg].(*types.PkgName)
	if pn == nil {
		return nil, nil, nil
	}
	return sel, pkg, pn
}

// callee is the function that call calls, without parentheses and
// without the type arguments of an explicit instantiation (F[T]).
func callee(call *ast.CallExpr) ast.Expr {
	fun := ast.Unparen(call.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		return x.X
	case *ast.IndexListExpr:
		return x.X
	}
	return fun
}

// What the passes of generic calls did with a call (rewriter.genericCalls).
const (
	genericFailed  = 1 // genericmacros found it unsupported
	genericWritten = 2 // written out, or a call of the session's version
)

// genericMacros is the pass "genericmacros" (genericmacro.go).
func genericMacros(r *rewriter, n ast.Node) Visit {
	x, ok := n.(*ast.CallExpr)
	if !ok {
		return Next
	}
	done, e := r.macroCall(x)
	if e != nil {
		r.fail(e)
		r.markGeneric(x, genericFailed)
	}
	if done {
		r.markGeneric(x, genericWritten)
	}
	return Next
}
