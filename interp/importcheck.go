package interp

import (
	"fmt"
	"go/ast"
	"go/token"
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
	"embed":  `package "embed" is not available in a cell: //go:embed embeds the files of a package's folder when it is compiled, and a cell has none; read the files when the cell runs, with os.ReadFile, or os.DirFS(dir) for an fs.FS`,
	"unsafe": `package "unsafe" is not available in the interpreter (yaegi gives cells no unsafe pointers)`,
	"C":      `cgo (import "C") is not available in the interpreter`,
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
			msg, ok := unavailable[p]
			if !ok {
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
		return fmt.Sprintf("package %q is not available in the interpreter: its standard library is Go 1.22's, and Go 1.26's for the packages of interp/symbols/stdlib.txt; this package is newer, generic only or internal", path)
	}
	return fmt.Sprintf("package %q is not available in the interpreter (it has the standard library and the gnnlab packages)", path)
}
