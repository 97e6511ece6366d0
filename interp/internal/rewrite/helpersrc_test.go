package rewrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"testing"

	"github.com/gnnlab/gnnlab/interp/internal/helpers"
	"github.com/gnnlab/gnnlab/interp/internal/rt"
	"github.com/gnnlab/gnnlab/interp/internal/symtypes"
)

// rtImporter gives go/types the runtime's package as the interpreter has
// it (rt.Path, from the runtime's table) and the others from symtypes.
type rtImporter struct{ rt *types.Package }

func (i rtImporter) Import(path string) (*types.Package, error) {
	if path == rt.Path {
		return i.rt, nil
	}
	return symtypes.Import(path)
}

// TestHelperSource type-checks the helper source that the session
// evaluates (internal/helpers): the session's helpers against the
// runtime's table, the generic helpers of the standard library against
// the symbol tables, as the interpreter compiles them.
func TestHelperSource(t *testing.T) {
	pkg := types.NewPackage(rt.Path, rt.Path)
	for name, v := range rt.New(io.Discard, make(chan int, 1)).Exports()[0][rt.Path+"/"+rt.Path] {
		if obj := symtypes.Object(pkg, name, v); obj != nil {
			pkg.Scope().Insert(obj)
		}
	}
	pkg.MarkComplete()
	imp := rtImporter{pkg}
	check := func(name string, srcs ...string) {
		t.Helper()
		fset := token.NewFileSet()
		var files []*ast.File
		for k, src := range srcs {
			f, err := parser.ParseFile(fset, name, src, 0)
			if err != nil {
				t.Errorf("%s (file %d): %v", name, k, err)
				return
			}
			files = append(files, f)
		}
		conf := types.Config{Importer: imp, Error: func(err error) { t.Errorf("%s: %v", name, err) }}
		if _, err := conf.Check(files[0].Name.Name, fset, files, nil); err != nil && !t.Failed() {
			t.Errorf("%s: %v", name, err)
		}
	}
	check("session/session.go", helpers.SessionFile())
	check("session (as evaluated)", helperSrc)
	for _, p := range helpers.StdPackages {
		check("std/"+p, helpers.StdFile(p))
		if genericSrc[p] == "" {
			t.Errorf("genericSrc[%q] is empty", p)
		}
	}
	for path, dir := range helpers.MacroPackages {
		files := []string{helpers.MacroFile(path)}
		switch dir {
		case "slices", "maps":
			files = append(files, helpers.StdFile(dir)) // their constraints
		case "iter":
			files = append(files, helpers.Iter())
		}
		check("std/"+dir+"/macros.go", files...)
		if macroDecls()[path] == "" {
			t.Errorf("macroDecls[%q] is empty", path)
		}
	}
	check("std/atomic (as evaluated)", helpers.Atomic())
	check("std/atomic/decl.go", helpers.AtomicDecl())
}
