package declname

import (
	"go/ast"
	"strconv"
	"strings"
)

// Of returns the names a top-level declaration defines; a method is
// "Type.Method", with Type its receiver's type name (Recv). An import
// declaration defines none here.
func Of(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) == 1 {
			return []string{Recv(d.Recv.List[0].Type) + "." + d.Name.Name}
		}
		return []string{d.Name.Name}
	case *ast.GenDecl:
		var names []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
		return names
	}
	return nil
}

// Recv is the name of the type of a receiver, or of an embedded
// field's type without its package: T of T, *T, (T), T[K] or *T[K, V];
// "" for an expression that names no type that way.
func Recv(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// Import is the name under which an import spec binds its package: its
// own name, or the package's (Package).
func Import(s *ast.ImportSpec) string {
	if s.Name != nil {
		return s.Name.Name
	}
	p, _ := strconv.Unquote(s.Path.Value)
	return Package(p)
}

// Package is the name of the package of import path p as Go's packages
// name themselves: the last element, or the one before a major version
// (math/rand/v2 is rand).
func Package(p string) string {
	name := p[strings.LastIndex(p, "/")+1:]
	if i := strings.LastIndex(p, "/"); i > 0 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		return Package(p[:i])
	}
	return name
}
