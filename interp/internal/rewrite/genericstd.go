package rewrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"sync"

	"github.com/gnnlab/gnnlab/interp/internal/helpers"
	"github.com/gnnlab/gnnlab/interp/internal/symtypes"
)

// The generic functions of slices, maps and cmp, and errors.AsType.
//
// yaegi's tables have no symbols for them, and the generic sources that
// yaegi compiles for some fail ("undefined type for E"). The session
// carries its own interpreted versions of the common ones (genericSrc),
// compiled into every interpreter under prefixed names
// (__gnnlab_slices_Sort), and tells go/types that packages slices, maps
// and cmp declare them (under their own names), so that a call
// slices.Sort(xs) is rewritten to __gnnlab_slices_Sort[int](xs) with the
// type arguments go/types inferred. Their signatures are simpler than
// the standard library's (a slice parameter is []E, not S ~[]E), so a
// result has the unnamed slice type. Those that return iterators
// (maps.Keys, slices.All: yaegi fails to call a closure that a generic
// function returns) and those that build slices with append
// (slices.Clone, Insert, Compact, Delete: yaegi's generic append lost the
// elements) are written out at each call instead (genericmacro.go).
// Functions in neither list stay unsupported, with an error naming them.
// A package's helpers are compiled into a session
// when a cell first calls one (Session.loadGeneric).

// genericSrc holds one template per package
// (internal/helpers/std/<pkg>/<pkg>.go); PFX is the prefix of its names:
// "" for go/types, "__gnnlab_<pkg>_" for the interpreter.
var genericSrc = helpers.StdSources()

// genericPrefix is the prefix of the interpreter's names for package p.
func genericPrefix(p string) string { return helperPrefix + p + "_" }

// genericPiece is the interpreter's source of the helpers of package p.
func genericPiece(p string) string {
	var b strings.Builder
	b.WriteString("package main\n")
	if strings.Contains(genericSrc[p], "SORT.") {
		b.WriteString("import __gnnlab_sort \"sort\"\n")
	}
	if strings.Contains(genericSrc[p], "ERRORS.") {
		b.WriteString("import __gnnlab_errors \"errors\"\n")
	}
	{
		src := genericSrc[p]
		pfx := genericPrefix(p)
		src = strings.ReplaceAll(src, "PFX", pfx)
		src = strings.ReplaceAll(src, "SORT.", "__gnnlab_sort.")
		src = strings.ReplaceAll(src, "ERRORS.", "__gnnlab_errors.")
		// The constraints get the prefix too.
		src = strings.ReplaceAll(src, "type ordered ", "type "+pfx+"ordered ")
		src = strings.ReplaceAll(src, "type Ordered ", "type "+pfx+"Ordered ")
		src = strings.ReplaceAll(src, " ordered]", " "+pfx+"ordered]")
		src = strings.ReplaceAll(src, " Ordered]", " "+pfx+"Ordered]")
		b.WriteString(src)
	}
	return b.String()
}

var (
	genericOnce sync.Once
	genericPkgs map[string]*types.Package
)

// genericTypes returns package p (slices, maps or cmp) as go/types sees it
// in cells: the helpers under their own names; nil for other packages.
// errors is the compiled package with AsType added (errorsTypes).
func genericTypes(p string) *types.Package {
	switch p {
	case "errors":
		return errorsTypes()
	case "math/rand/v2":
		return randTypes()
	case "sync":
		return syncTypes()
	case "sync/atomic":
		return atomicTypes() // genericatomic.go
	}
	return genericHelpers(p)
}

// errorsTypes is package errors for go/types: the compiled functions of
// the symbol table and the interpreted AsType.
var errorsTypes = sync.OnceValue(func() *types.Package {
	p, err := symtypes.Import("errors")
	if err != nil {
		return nil
	}
	if h := genericHelpers("errors"); h != nil {
		for _, name := range h.Scope().Names() {
			if p.Scope().Lookup(name) == nil {
				p.Scope().Insert(h.Scope().Lookup(name))
			}
		}
	}
	return p
})

// randTypes is package math/rand/v2 for go/types: the compiled functions
// and the generic N, written out at its calls (genericmacro.go).
var randTypes = sync.OnceValue(func() *types.Package { return withMacros("math/rand/v2") })

// syncTypes is package sync for go/types: the compiled package and the
// generic OnceValue and OnceValues, written out at their calls
// (genericmacro.go).
var syncTypes = sync.OnceValue(func() *types.Package { return withMacros("sync") })

// withMacros returns compiled package path with the functions of its
// macroDecls added.
func withMacros(path string) *types.Package {
	p, err := symtypes.Import(path)
	if err != nil {
		return nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "macros.go", "package "+p.Name()+"\n"+macroDecls()[path], 0)
	if err != nil {
		return p
	}
	conf := types.Config{Error: func(error) {}}
	h, _ := conf.Check(path, fset, []*ast.File{f}, nil)
	if h == nil {
		return p
	}
	for _, name := range h.Scope().Names() {
		if fn, ok := h.Scope().Lookup(name).(*types.Func); ok && p.Scope().Lookup(name) == nil {
			p.Scope().Insert(fn)
		}
	}
	return p
}

// genericHelpers is the package of the helpers of p for go/types.
func genericHelpers(p string) *types.Package {
	genericOnce.Do(func() {
		genericPkgs = map[string]*types.Package{}
		for name, src := range genericSrc {
			text := "package " + name + "\n\nimport \"sort\"\n" + strings.ReplaceAll(strings.ReplaceAll(src, "PFX", ""), "SORT.", "sort.") + macroDecls()[name]
			if !strings.Contains(text, "sort.") {
				text = strings.Replace(text, "import \"sort\"\n", "", 1)
			}
			if strings.Contains(text, "ERRORS.") {
				text = strings.Replace(strings.ReplaceAll(text, "ERRORS.", "__errors."), "\n\n", "\n\nimport __errors \"errors\"\n", 1)
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name+".go", text, 0)
			if err != nil {
				continue
			}
			// symtypes, not importer{}, which would come back here.
			conf := types.Config{Importer: symtypes.Importer, Error: func(error) {}}
			pkg, _ := conf.Check(name, fset, []*ast.File{f}, nil)
			if pkg != nil {
				genericPkgs[name] = pkg
			}
		}
	})
	return genericPkgs[p]
}

// genericCallee rewrites the callee of a call of slices.F, maps.F or
// cmp.F that the helpers provide, and reports whether it did.
func (r *rewriter) genericCallee(call *ast.CallExpr) (bool, *unsupportedError) {
	// An explicit instantiation (errors.AsType[*fs.PathError]) is
	// replaced whole, with the type arguments go/types recorded.
	sel, _, pn := r.pkgCallee(call)
	if pn == nil || genericSrc[pn.Imported().Path()] == "" {
		return false, nil
	}
	fn, ok := r.info.Uses[sel.Sel].(*types.Func)
	if !ok {
		switch path := pn.Imported().Path(); {
		case r.info.Uses[sel.Sel] == nil && (path == "slices" || path == "maps" || path == "cmp"):
			// These packages are generic only: a function go/types does
			// not know is one the helpers lack (or none at all), which
			// yaegi reported from its own source of the package, by a
			// line of that source ("392:19: undefined type for E"), or
			// as an undefined selector (compileError).
			return false, &unsupportedError{call.Pos(), path + "." + sel.Sel.Name + " is undefined, or is a generic function of the standard library, which the interpreter does not provide (write the loop instead)"}
		}
		return false, nil
	}
	inst, ok := r.info.Instances[sel.Sel]
	if !ok {
		return false, nil
	}
	args := make([]string, inst.TypeArgs.Len())
	for k := range args {
		t, ok := typeText(inst.TypeArgs.At(k), r.names)
		if !ok {
			return false, &unsupportedError{call.Pos(), pn.Imported().Path() + "." + fn.Name() + " with a type argument of a package the cell did not import is not supported by the interpreter"}
		}
		args[k] = t
	}
	callee := genericPrefix(pn.Imported().Path()) + sel.Sel.Name + "[" + strings.Join(args, ", ") + "]"
	r.useInstance(callee, len(args), inst.Type, call.Pos()) // geninstance.go
	if sig, ok := inst.Type.(*types.Signature); ok && sig.Results().Len() > 1 {
		// yaegi fails to compile a, b := f[T](x) at the top level of a
		// cell (a nil pointer in its compiler) for a generic f; the call
		// goes inside a function literal with the instantiated results.
		res := make([]string, sig.Results().Len())
		for k := range res {
			t, ok := typeText(sig.Results().At(k).Type(), r.names)
			if !ok {
				return false, &unsupportedError{call.Pos(), pn.Imported().Path() + "." + fn.Name() + " with a result of a package the cell did not import is not supported by the interpreter"}
			}
			res[k] = t
		}
		r.ed.Replace(call.Pos(), ast.Unparen(call.Fun).End(), "func() ("+strings.Join(res, ", ")+") { return "+callee)
		r.ed.Insert(call.End(), " }()", false)
	} else {
		r.ed.Replace(sel.Pos(), ast.Unparen(call.Fun).End(), callee)
	}
	if r.generic == nil {
		r.generic = map[string]bool{}
	}
	r.generic[pn.Imported().Path()] = true
	return true, nil
}

// genericStd is the pass "genericstd" (genericstd.go): calls that
// genericmacros saw are left alone.
func genericStd(r *rewriter, n ast.Node) Visit {
	x, ok := n.(*ast.CallExpr)
	if !ok || r.genericCalls[x] != 0 {
		return Next
	}
	done, e := r.genericCallee(x)
	if e != nil {
		r.fail(e)
	}
	if done {
		r.markGeneric(x, genericWritten)
	}
	return Next
}
