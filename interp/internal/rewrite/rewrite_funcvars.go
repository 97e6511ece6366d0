package rewrite

import "go/ast"

// The pass "funcstovars", for a replay of the session's declarations.

// funcsToVars rewrites each plain top-level function `func f(p) r {b}` to
// `var f func(p) r = func(p) r {b}`, so that a later redefinition of f is
// seen by the functions that call it. Methods, generic functions and init
// stay declarations.
func funcsToVars(f *ast.File, ed *Editor) {
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || !plainFunc(fd) {
			continue
		}
		sig := ed.Text(fd.Type.Params.Pos(), fd.Type.End(), false)
		ed.Replace(fd.Pos(), fd.Type.Params.Pos(), "var "+funcName(fd)+" func"+sig+" = func")
	}
}

// funcName is the name a plain function gets in the interpreter: main is
// renamed, since yaegi would run a function named main on every later cell.
func funcName(fd *ast.FuncDecl) string {
	if fd.Name.Name == "main" {
		return helperMain
	}
	return fd.Name.Name
}
