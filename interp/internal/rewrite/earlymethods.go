package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/gnnlab/gnnlab/interp/internal/declname"
)

// Methods of a cell's generic types before the instances of the types.
//
// yaegi gives an instance of a generic type (Box[int]) the methods that
// the generic type has when the instance is first made, and later methods
// never reach it: a struct embedding Box[int] declared before Box's
// methods lacked the promoted methods ("undefined selector: Set"), and a
// function variable of type func(Set[int]) declared before Set's methods
// broke their compilation ("undefined type for T"). The session (interp's
// Session.runDecls) declares types in its first phase and methods in its
// third, after the variables of the second phase, so every instance that
// the types and variables of a cell made came before the methods of the
// same cell.
//
// EarlyMethods finds the generic types of the cell whose methods can run
// with the types instead: each method's body uses, of the names the cell
// declares, only types and constants (the functions and variables of
// the cell do not exist yet in the first phase), and starts no goroutine
// (rewrite_go.go declares a function for it in the third phase). A type
// is chosen only if all of its methods in the cell are; runDecls then
// writes the chosen types, each followed by its methods, after the cell's
// other types and constants, which the methods may use (yaegi lost the
// methods when they used one declared after them), except those that name
// a chosen type (late), directly or through another, which come last.
//
// decls is the cell's file of imports and declarations, in fset; info is
// what go/types found in it. early maps each chosen type's declaration to
// its methods, moved holds those methods, late the type and constant
// declarations that come last; all are nil when no type is chosen.
func EarlyMethods(fset *token.FileSet, decls *ast.File, info *types.Info) (early map[*ast.GenDecl][]*ast.FuncDecl, moved map[*ast.FuncDecl]bool, late map[*ast.GenDecl]bool) {
	generic := map[string]*ast.GenDecl{} // generic type name -> its declaration
	for _, d := range decls.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
			for _, sp := range gd.Specs {
				if ts := sp.(*ast.TypeSpec); ts.TypeParams != nil && len(ts.TypeParams.List) > 0 {
					generic[ts.Name.Name] = gd
				}
			}
		}
	}
	if len(generic) == 0 {
		return nil, nil, nil
	}
	tf := fset.File(decls.Pos())
	inCell := func(obj types.Object) bool {
		p := int(obj.Pos())
		return tf != nil && p >= tf.Base() && p <= tf.Base()+tf.Size()
	}
	ok := map[string]bool{}
	var found []*ast.FuncDecl
	for _, d := range decls.Decls {
		fd, isFunc := d.(*ast.FuncDecl)
		if !isFunc || fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Body == nil {
			continue
		}
		name := declname.Recv(fd.Recv.List[0].Type)
		if generic[name] == nil {
			continue
		}
		if _, seen := ok[name]; !seen {
			ok[name] = true
		}
		ok[name] = ok[name] && selfContained(fd.Body, info, inCell)
		found = append(found, fd)
	}
	for _, fd := range found {
		name := declname.Recv(fd.Recv.List[0].Type)
		if !ok[name] {
			continue
		}
		if early == nil {
			early, moved = map[*ast.GenDecl][]*ast.FuncDecl{}, map[*ast.FuncDecl]bool{}
		}
		early[generic[name]] = append(early[generic[name]], fd)
		moved[fd] = true
	}
	if early == nil {
		return nil, nil, nil
	}
	// The other type and constant declarations that name an early type,
	// or one of them, come after the early ones: before them, they would
	// make instances without the methods.
	names := map[string]bool{}
	for name, gd := range generic {
		if early[gd] != nil {
			names[name] = true
		}
	}
	late = map[*ast.GenDecl]bool{}
	for changed := true; changed; {
		changed = false
		for _, d := range decls.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || (gd.Tok != token.TYPE && gd.Tok != token.CONST) || early[gd] != nil || late[gd] || !refers(gd, names) {
				continue
			}
			late[gd], changed = true, true
			for _, n := range declname.Of(gd) {
				names[n] = true
			}
		}
	}
	return early, moved, late
}

// selfContained reports whether body uses, of the package-level names
// that inCell reports, only types and constants, uses no name go/types
// left undefined, and has no go statement.
func selfContained(body *ast.BlockStmt, info *types.Info, inCell func(types.Object) bool) bool {
	ok := true
	ast.Inspect(body, func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch x := n.(type) {
		case *ast.GoStmt:
			ok = false
		case *ast.SelectorExpr:
			// x.Sel is a field, a method or a name of a package.
			ast.Inspect(x.X, func(m ast.Node) bool {
				if id, isID := m.(*ast.Ident); isID {
					ok = ok && usable(id, info, inCell)
				}
				return ok
			})
			return false
		case *ast.Ident:
			ok = usable(x, info, inCell)
		}
		return ok
	})
	return ok
}

// usable reports whether id is defined in the function, or names
// something that exists before the cell's functions and variables do.
func usable(id *ast.Ident, info *types.Info, inCell func(types.Object) bool) bool {
	if id.Name == "_" || info.Defs[id] != nil {
		return true
	}
	obj := info.Uses[id]
	if obj == nil {
		return false // undefined, or a variable hoisted from the statements
	}
	if obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() || !inCell(obj) {
		return true
	}
	switch obj.(type) {
	case *types.TypeName, *types.Const:
		return true
	}
	return false
}
