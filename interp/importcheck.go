package interp

import (
	"fmt"
	"go/ast"
	"go/token"
	"runtime"
	"strconv"
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
	"embed":        `package "embed" is not available in a cell: //go:embed embeds the files of a package's folder when it is compiled, and a cell has none; read the files when the cell runs, with os.ReadFile, or os.DirFS(dir) for an fs.FS`,
	"unsafe":       `package "unsafe" is not available in the interpreter (cells have no unsafe pointers)`,
	"C":            `cgo (import "C") is not available in the interpreter`,
	"syscall":      `package "syscall" is not available in the interpreter: cells make no system calls of their own; use os, os/exec or os/signal`,
	"plugin":       `package "plugin" is not available: gnnlab is built without cgo, which Go plugins need; %go get MODULE interprets a module's source instead`,
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
			if err != nil || isIterImport(is) {
				continue
			}
			if _, ok := packages().byPath[p]; ok {
				continue
			}
			if _, ok := pluginTables.Load(p); ok { // compiled.go
				continue
			}
			mp, isMod := s.modPackage(p) // modules.go
			if isMod && mp.why == "" {
				s.keepSlots = true // release.go
				continue
			}
			msg, ok := unavailable[p]
			switch {
			case isMod:
				msg = fmt.Sprintf("package %q (module %s) cannot be used in a cell: %s", p, mp.module, mp.why)
			case !ok:
				msg = notAvailable(p)
			}
			pos := s.fset.Position(is.Path.Pos())
			return &Error{Name: nameCompile, Value: msg, Traceback: []string{cellPos(pos.Line, pos.Column) + ": " + msg}}
		}
	}
	return nil
}

// notAvailable is the message for an import path that no table holds.
func notAvailable(path string) string {
	if isStdKey(path) {
		return fmt.Sprintf("package %q is not in the standard library of the interpreter (%s): it is internal, or not a standard package", path, runtime.Version())
	}
	return fmt.Sprintf("package %q is not available: cells have the standard library and the gnnlab packages, and the modules that %%go get MODULE[@VERSION] adds", path)
}
