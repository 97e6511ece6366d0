package rewrite

import (
	"go/ast"
	"go/types"
	"strings"

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
// The arguments keep their text and place. go/types sees the functions'
// signatures (macroDecls); {0}, {1}... in a body stand for the type
// arguments, {pkg} for the name by which the cell calls the package. iter.Pull runs the sequence in a goroutine that hands each
// value over a channel (yaegi's return <-ch returned a wrong value: the
// bodies receive into a variable first).

// macroDecls are the signatures go/types sees, by package, beside the
// helpers of genericSrc (internal/helpers/std/<pkg>/macros.go); their
// type parameters are the {k} of macroBodies.
var macroDecls = helpers.MacroSources()

// macroBodies are the function literals that replace the callees.
var macroBodies = map[string]string{
	"maps.Keys":    `func(m map[{0}]{1}) func(func({0}) bool) { return func(yield func({0}) bool) { for k := range m { if !yield(k) { return } } } }`,
	"maps.Values":  `func(m map[{0}]{1}) func(func({1}) bool) { return func(yield func({1}) bool) { for _, v := range m { if !yield(v) { return } } } }`,
	"maps.All":     `func(m map[{0}]{1}) func(func({0}, {1}) bool) { return func(yield func({0}, {1}) bool) { for k, v := range m { if !yield(k, v) { return } } } }`,
	"maps.Collect": `func(seq func(func({0}, {1}) bool)) map[{0}]{1} { m := map[{0}]{1}{}; seq(func(k {0}, v {1}) bool { m[k] = v; return true }); return m }`,
	"maps.Clone":   `func(m {0}) {0} { if m == nil { return nil }; c := make({0}, len(m)); for k, v := range m { c[k] = v }; return c }`,
	"maps.Insert":  `func(m map[{0}]{1}, seq func(func({0}, {1}) bool)) { seq(func(k {0}, v {1}) bool { m[k] = v; return true }) }`,

	"slices.All":         `func(s []{0}) func(func(int, {0}) bool) { return func(yield func(int, {0}) bool) { for i := 0; i < len(s); i++ { if !yield(i, s[i]) { return } } } }`,
	"slices.Values":      `func(s []{0}) func(func({0}) bool) { return func(yield func({0}) bool) { for i := 0; i < len(s); i++ { if !yield(s[i]) { return } } } }`,
	"slices.Backward":    `func(s []{0}) func(func(int, {0}) bool) { return func(yield func(int, {0}) bool) { for i := len(s) - 1; i >= 0; i-- { if !yield(i, s[i]) { return } } } }`,
	"slices.Collect":     `func(seq func(func({0}) bool)) []{0} { var s []{0}; seq(func(v {0}) bool { s = append(s, v); return true }); return s }`,
	"slices.AppendSeq":   `func(s {0}, seq func(func({1}) bool)) {0} { seq(func(v {1}) bool { s = append(s, v); return true }); return s }`,
	"slices.Sorted":      `func(seq func(func({0}) bool)) []{0} { var s []{0}; seq(func(v {0}) bool { s = append(s, v); return true }); __gnnlab_slices_Sort[{0}](s); return s }`,
	"slices.SortedFunc":  `func(seq func(func({0}) bool), cmp func({0}, {0}) int) []{0} { var s []{0}; seq(func(v {0}) bool { s = append(s, v); return true }); __gnnlab_slices_SortStableFunc[{0}](s, cmp); return s }`,
	"slices.Clone":       `func(s {0}) {0} { if s == nil { return nil }; return append({0}{}, s...) }`,
	"slices.Compact":     `func(s {0}) {0} { if len(s) < 2 { return s }; i := 1; for k := 1; k < len(s); k++ { if s[k] != s[k-1] { s[i] = s[k]; i++ } }; for k := i; k < len(s); k++ { var z {1}; s[k] = z }; return s[:i] }`,
	"slices.CompactFunc": `func(s {0}, eq func({1}, {1}) bool) {0} { if len(s) < 2 { return s }; i := 1; for k := 1; k < len(s); k++ { if !eq(s[k], s[i-1]) { s[i] = s[k]; i++ } }; for k := i; k < len(s); k++ { var z {1}; s[k] = z }; return s[:i] }`,
	"slices.Insert":      `func(s {0}, i int, v ...{1}) {0} { _ = s[i:]; r := make({0}, 0, len(s)+len(v)); r = append(r, s[:i]...); r = append(r, v...); return append(r, s[i:]...) }`,
	"slices.Delete":      `func(s {0}, i, j int) {0} { _ = s[i:j:len(s)]; if i == j { return s }; n := len(s); s = append(s[:i], s[j:]...); for k := len(s); k < n; k++ { var z {1}; s[:n][k] = z }; return s }`,
	"slices.DeleteFunc":  `func(s {0}, del func({1}) bool) {0} { i := 0; for k := 0; k < len(s); k++ { if !del(s[k]) { s[i] = s[k]; i++ } }; for k := i; k < len(s); k++ { var z {1}; s[k] = z }; return s[:i] }`,
	"slices.Concat":      `func(ss ...{0}) {0} { var r {0}; for _, s := range ss { r = append(r, s...) }; return r }`,
	"slices.Repeat":      `func(x {0}, count int) {0} { if count < 0 { panic("cannot be negative") }; r := make({0}, 0, len(x)*count); for k := 0; k < count; k++ { r = append(r, x...) }; return r }`,
	"slices.Chunk":       `func(s []{0}, n int) func(func([]{0}) bool) { if n < 1 { panic("cannot be less than 1") }; return func(yield func([]{0}) bool) { for i := 0; i < len(s); i += n { end := i + n; if end > len(s) { end = len(s) }; if !yield(s[i:end:end]) { return } } } }`,

	// A panic of f is not kept: a later call runs nothing and returns
	// the zero values (Go's panics again with the same value).
	"sync.OnceValue":  `func(f func() {0}) func() {0} { var once {pkg}.Once; var v {0}; return func() {0} { once.Do(func() { v = f() }); return v } }`,
	"sync.OnceValues": `func(f func() ({0}, {1})) func() ({0}, {1}) { var once {pkg}.Once; var a {0}; var b {1}; return func() ({0}, {1}) { once.Do(func() { a, b = f() }); return a, b } }`,

	"math/rand/v2.N": `func(n {0}) {0} { if n <= 0 { panic("invalid argument to N") }; return {0}({pkg}.Uint64N(uint64(n))) }`,

	"iter.Pull": `func(seq func(func({0}) bool)) (func() ({0}, bool), func()) {
	req := make(chan bool)
	resp := make(chan {0})
	fin := make(chan struct{})
	started := false
	over := false
	run := func() {
		defer close(fin)
		if <-req {
			seq(func(v {0}) bool { resp <- v; more := <-req; return more })
		}
	}
	next := func() ({0}, bool) {
		var zero {0}
		if over { return zero, false }
		if !started { started = true; go run() }
		req <- true
		select {
		case v := <-resp:
			return v, true
		case <-fin:
			over = true
			return zero, false
		}
	}
	stop := func() {
		if over { return }
		over = true
		if !started { return }
		select {
		case req <- false:
		case <-fin:
		}
		<-fin
	}
	return next, stop
}`,
	"iter.Pull2": `func(seq func(func({0}, {1}) bool)) (func() ({0}, {1}, bool), func()) {
	type kv struct { k {0}; v {1} }
	req := make(chan bool)
	resp := make(chan kv)
	fin := make(chan struct{})
	started := false
	over := false
	run := func() {
		defer close(fin)
		if <-req {
			seq(func(k {0}, v {1}) bool { resp <- kv{k, v}; more := <-req; return more })
		}
	}
	next := func() ({0}, {1}, bool) {
		var zk {0}
		var zv {1}
		if over { return zk, zv, false }
		if !started { started = true; go run() }
		req <- true
		select {
		case p := <-resp:
			return p.k, p.v, true
		case <-fin:
			over = true
			return zk, zv, false
		}
	}
	stop := func() {
		if over { return }
		over = true
		if !started { return }
		select {
		case req <- false:
		case <-fin:
		}
		<-fin
	}
	return next, stop
}`,
}

// macroCall writes out a call of a function of macroBodies; it reports
// whether it did.
func (r *rewriter) macroCall(call *ast.CallExpr) (bool, *unsupportedError) {
	sel, pkg, pn := r.pkgCallee(call)
	if pn == nil {
		return false, nil
	}
	name := pn.Imported().Path() + "." + sel.Sel.Name
	body, ok := macroBodies[name]
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
	r.ed.Replace(call.Fun.Pos(), call.Fun.End(), "("+oneLine(body)+")")
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

// oneLine joins the lines of a function literal with semicolons where Go
// would insert them.
func oneLine(src string) string {
	if !strings.Contains(src, "\n") {
		return src
	}
	lines := strings.Split(src, "\n")
	var b strings.Builder
	for k, l := range lines {
		l = strings.TrimSpace(l)
		b.WriteString(l)
		if k == len(lines)-1 {
			break
		}
		switch {
		case l == "", strings.HasSuffix(l, "{"), strings.HasSuffix(l, ":"), strings.HasSuffix(l, "("), strings.HasSuffix(l, ","):
			b.WriteString(" ")
		default:
			b.WriteString("; ")
		}
	}
	return b.String()
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
