// Package helpers holds the Go source that the session evaluates beside
// the cells, as real files that gofmt, vet and type-check tests see
// (TestHelperSource in internal/rewrite, TestMacroBodies here), embedded
// here:
//
//   - session/session.go: compiled into every interpreter (min, max, new
//     with a value, the conversions to error and fmt.Stringer that call
//     the runtime); it imports the runtime's package, which exists only
//     in the interpreter, so the build ignores it;
//   - std/<pkg>/<pkg>.go: the interpreted generic functions of cmp,
//     slices, maps and errors, written with PFX before their names and
//     SORT and ERRORS as the names of sort and errors, which the session
//     replaces (genericstd.go in internal/rewrite);
//   - std/atomic: atomic.Pointer[T] as an interpreted generic type, and
//     the declaration go/types sees (genericatomic.go in internal/rewrite);
//   - std/<pkg>/macros.go: the generic functions that the session writes
//     out at each call (maps.Keys, slices.Sorted, rand.N, sync.OnceValue,
//     iter.Pull; genericmacro.go): go/types sees their signatures
//     (Macros), and the call becomes the function literal of MacroBodies;
//     std/iter/iter.go is package iter's types for go/types.
package helpers

import (
	"embed"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

//go:embed session/session.go std
var files embed.FS

func read(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic("helpers: " + err.Error()) // embedded: a missing file is a build error
	}
	return string(b)
}

// after returns the text of the file src after its package clause and,
// if imports, after its imports.
func after(src string, imports bool) string {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly)
	if err != nil {
		panic("helpers: " + err.Error())
	}
	end := f.Name.End()
	if imports {
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
				end = gd.End()
			}
		}
	}
	return src[int(end)-1:]
}

// Session is the source compiled into every interpreter.
func Session() string { return "package main" + after(read("session/session.go"), false) }

// StdPackages are the packages whose generic functions Std holds.
var StdPackages = []string{"cmp", "errors", "maps", "slices"}

// Std returns the helpers of package p, one of StdPackages: the text
// after the file's imports, with PFX, SORT and ERRORS still to replace.
func Std(p string) string { return after(read("std/"+p+"/"+p+".go"), true) }

// StdFile returns the whole file of Std(p), for a type check.
func StdFile(p string) string { return read("std/" + p + "/" + p + ".go") }

// SessionFile returns the whole file of Session, for a type check.
func SessionFile() string { return read("session/session.go") }

// Atomic is atomic.Pointer[T] as the interpreter compiles it.
func Atomic() string { return "package main" + after(read("std/atomic/atomic.go"), false) }

// AtomicDecl is package sync/atomic's Pointer as go/types sees it, a
// file of package atomic.
func AtomicDecl() string { return read("std/atomic/decl.go") }

// MacroPackages are the packages (import paths) with a macros.go, by the
// folder under std that holds it.
var MacroPackages = map[string]string{"maps": "maps", "slices": "slices", "math/rand/v2": "rand", "sync": "sync", "iter": "iter"}

// Macros returns the declarations of path's macros.go (path one of
// MacroPackages) as go/types sees them: the text after the package
// clause and the imports, each function's body cut to a panic.
func Macros(path string) string {
	dir, ok := MacroPackages[path]
	if !ok {
		return ""
	}
	src := read("std/" + dir + "/macros.go")
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		panic("helpers: " + err.Error())
	}
	var b strings.Builder
	at := int(f.Name.End()) - 1
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				at = int(d.End()) - 1
			}
		case *ast.FuncDecl:
			b.WriteString(src[at : int(d.Body.Pos())-1])
			b.WriteString("{ panic(0) }")
			at = int(d.Body.End()) - 1
		}
	}
	b.WriteString(src[at:])
	return b.String()
}

// MacroFile returns the whole file of Macros(path), for a type check.
func MacroFile(path string) string { return read("std/" + MacroPackages[path] + "/macros.go") }

// Iter is package iter's types as go/types sees them, a file of package
// iter.
func Iter() string { return read("std/iter/iter.go") }

// StdSources is Std of each of StdPackages, by package.
func StdSources() map[string]string {
	m := map[string]string{}
	for _, p := range StdPackages {
		m[p] = Std(p)
	}
	return m
}

// MacroSources is Macros of each of MacroPackages, by import path.
func MacroSources() map[string]string {
	m := map[string]string{}
	for p := range MacroPackages {
		m[p] = Macros(p)
	}
	return m
}
