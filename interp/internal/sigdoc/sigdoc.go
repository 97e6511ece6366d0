// Package sigdoc renders a declaration for Shift-Tab and name?: its
// signature as gofmt prints it, then its doc comment. It is the one
// renderer of declarations of cells (interp), of the standard library
// (interp/internal/inspect) and of the preloaded packages, whose docs
// interp/symbols generates with it.
package sigdoc

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strings"
)

// Config is gofmt's printer configuration, with which Decl prints and
// every other printer of source for a user (name??, the generated docs'
// examples) prints too.
var Config = printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}

// Decl returns decl without the body of a function and without doc
// comments, printed as gofmt prints it, followed by doc after a blank
// line when doc is not empty.
func Decl(fset *token.FileSet, decl ast.Node, doc string) string {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		c := *d
		c.Body, c.Doc = nil, nil
		decl = &c
	case *ast.GenDecl:
		c := *d
		c.Doc = nil
		decl = &c
	}
	var buf bytes.Buffer
	_ = Config.Fprint(&buf, fset, decl)
	if doc != "" {
		buf.WriteString("\n\n" + strings.TrimRight(doc, "\n"))
	}
	return buf.String()
}

// Source renders the top-level declaration src (as a cell wrote it)
// with Decl; src as it is, trimmed, when it is not one declaration.
func Source(src, doc string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", "package p\n"+src, 0)
	if err != nil || len(f.Decls) != 1 {
		s := strings.TrimSpace(src)
		if doc != "" {
			s += "\n\n" + strings.TrimRight(doc, "\n")
		}
		return s
	}
	return Decl(fset, f.Decls[0], doc)
}
