package interp

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/declname"
	"github.com/gnnlab/gnnlab/interp/internal/inspect"
	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
	"github.com/gnnlab/gnnlab/interp/internal/symtypes"
)

// Imports that the interpreter cannot satisfy.
//
// yaegi compiles a cell's declarations in order, so a cell whose import
// failed had already declared what came before the import (types without
// a reflect type, a package name half imported): later cells failed with
// "fmt/_.go redeclared in this block" or "internal error: nil reflect
// type". The session checks every import of a cell against the symbol
// tables first and refuses the whole cell before yaegi sees any of it.

// unavailable explains the packages that a cell may not import, for
// those where there is something better to say than "not available".
var unavailable = map[string]string{
	"embed":        `package "embed" is not available to interpreted cells (the interpreter cannot embed files), and this cell runs interpreted: the compiled tier builds a cell with //go:embed FILE into a string or []byte variable, with import _ "embed", FILE a path in the session's working directory (no glob, no ".."), and its notice says why it did not build this one (%compiled says whether the tier is on); an embed.FS is not compiled. Otherwise read the files when the cell runs, with os.ReadFile, or os.DirFS(dir) for an fs.FS`,
	"unsafe":       `package "unsafe" is not available in the interpreter (cells have no unsafe pointers)`,
	"C":            `cgo (import "C") is not available in the interpreter`,
	"syscall":      `package "syscall" is not available in the interpreter: cells make no system calls of their own; use os, os/exec or os/signal`,
	"plugin":       `package "plugin" is not available in cells: the session itself loads what cells declare as plugins (the compiled tier, %compiled); %go get MODULE adds a module's packages`,
	"runtime/cgo":  `package "runtime/cgo" is not available: the interpreter runs no cgo`,
	"runtime/race": `package "runtime/race" is not available: it exists only in a binary built with -race`,
}

// checkImports returns a compile error naming the first import of pc
// that no symbol table holds, with its cell position, or nil.
func (s *Session) checkImports(pc *parsedCell) *Error {
	for _, d := range pc.decls.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for _, sp := range gd.Specs {
			is := sp.(*ast.ImportSpec)
			p, err := strconv.Unquote(is.Path.Value)
			if err != nil || rewrite.IsIterImport(is) {
				continue
			}
			if _, ok := inspect.Packages().ByPath[p]; ok {
				continue
			}
			if symtypes.IsPlugin(p) { // compiled.go
				continue
			}
			mp, isMod := s.modPackage(p) // modules.go
			if isMod && mp.why == "" {
				s.keepSlots = true               // release.go
				s.compiled.modInterpreted = true // compiled.go
				continue
			}
			msg, ok := unavailable[p]
			switch {
			case isMod:
				msg = fmt.Sprintf("package %q (module %s) cannot be used in a cell: %s", p, mp.module, mp.why)
				if !s.compiled.off && s.compiled.broken == "" {
					msg += "; compiled code can use it: call it from functions that a cell declares (they compile, with this import in their cell), not from the cell's statements"
				}
			case !ok:
				msg = notAvailable(p)
			}
			return compileErrorAt(s.fset, is.Path.Pos(), msg)
		}
	}
	return s.checkGenericUse(pc) // modules.go
}

// checkReturn returns a compile error for a return among the cell's own
// statements (not inside a function literal): they run at the top level,
// where yaegi's compiler panicked on it (the cell "return" gave an
// internal error; FuzzCells found it).
func (s *Session) checkReturn(pc *parsedCell) *Error {
	if pc.body == nil {
		return nil
	}
	var ret *ast.ReturnStmt
	ast.Inspect(pc.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if ret == nil {
				ret = n
			}
		}
		return ret == nil
	})
	if ret == nil {
		return nil
	}
	const msg = "return outside a function: a cell's statements run at the top level, where there is nothing to return from (declare a func and call it, or end the cell with if/else)"
	return compileErrorAt(s.fset, ret.Pos(), msg)
}

// notAvailable is the message for an import path that no table holds.
func notAvailable(path string) string {
	if isStdKey(path) {
		return fmt.Sprintf("package %q is not in the standard library of the interpreter (%s): it is internal, or not a standard package", path, runtime.Version())
	}
	return fmt.Sprintf("package %q is not available: cells have the standard library and the gnnlab packages, and the modules that %%go get MODULE[@VERSION] adds", path)
}

// Automatic imports.
//
// A cell that uses a package it did not import (fmt.Println without
// import "fmt"), as goimports would add it, gets the import: a name that
// neither the cell nor the session defines, used as X in X.Sel, is looked
// up among the standard library and gnnlab packages of the symbol tables
// by package name (math/rand/v2 is rand); the package must have every
// name the cell selects from it (its table's, or the generic ones the
// session provides: rand.N, slices.Sorted), and of several such packages the one with the shortest path wins
// (math/rand over math/rand/v2). The session imports it for good, as an
// import in the cell would, and writes a line on standard error saying so.

// packagesNamed returns the import paths of the preloaded packages with
// name, shortest first.
func packagesNamed(name string) []string {
	var ps []string
	for p := range inspect.Packages().ByPath {
		if declname.Package(p) == name && !strings.Contains(p, "internal") {
			ps = append(ps, p)
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		if len(ps[i]) != len(ps[j]) {
			return len(ps[i]) < len(ps[j])
		}
		return ps[i] < ps[j]
	})
	return ps
}

// providedGeneric reports whether the session provides the generic
// function or type name of package p (internal/rewrite/genericstd.go), which no symbol
// table holds.
func providedGeneric(p, name string) bool {
	t := rewrite.GenericPackage(p)
	return t != nil && t.Scope().Lookup(name) != nil
}

// autoImport imports the packages that the cell uses without importing;
// it reports whether it imported any.
func (s *Session) autoImport(ctx context.Context, pc *parsedCell, undef []types.Error) (bool, error) {
	if len(undef) == 0 {
		return false, nil
	}
	missing := map[string]bool{}
	for _, u := range undef {
		missing[strings.TrimPrefix(u.Msg, "undefined: ")] = true
	}
	sels := map[string]map[string]bool{}
	for _, n := range []ast.Node{pc.decls, pc.body} {
		ast.Inspect(n, func(x ast.Node) bool {
			if sel, ok := x.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && missing[id.Name] {
					if sels[id.Name] == nil {
						sels[id.Name] = map[string]bool{}
					}
					sels[id.Name][sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	names := make([]string, 0, len(sels))
	for n := range sels {
		names = append(names, n)
	}
	sort.Strings(names)
	var imps []importRec
	var src strings.Builder
	for _, name := range names {
	candidates:
		for _, p := range packagesNamed(name) {
			exp := inspect.Packages().ByPath[p]
			for sel := range sels[name] {
				if _, ok := exp[sel]; !ok && !providedGeneric(p, sel) {
					continue candidates
				}
			}
			imps = append(imps, importRec{name, p})
			fmt.Fprintf(&src, "import %q\n", p)
			break
		}
	}
	if len(imps) == 0 {
		return false, nil
	}
	if _, err := s.eval(ctx, "package main\n"+src.String(), nil); err != nil {
		return false, err
	}
	s.commit(nil, imps)
	paths := make([]string, len(imps))
	for k, im := range imps {
		paths[k] = fmt.Sprintf("%q", im.path)
	}
	fmt.Fprintf(s.errw, "interp: added import %s\n", strings.Join(paths, ", "))
	return true, nil
}
