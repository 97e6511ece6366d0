package compiled

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"testing"
)

func checkPackage(t *testing.T, src string) *types.Package {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.Default()}
	pkg, err := conf.Check("example.com/p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

// TestPackageSource: a package plugin's Symbols hold what yaegi's tables
// hold (functions, types as nil pointers, variables by address, typed
// constants); untyped constants and generic names come apart.
func TestPackageSource(t *testing.T) {
	pkg := checkPackage(t, `package p

type T struct{ A int }
type G[X any] struct{ x X }
type Kind int

const (
	Big       = 1 << 70
	Name      = "p"
	K    Kind = 3
)

var V = 1

func F() T                   { return T{} }
func Map[X, Y any](x X) Y    { var y Y; return y }
func unexported()            {}
`)
	src, untyped, generic := packageSource(pkg)
	for _, want := range []string{
		`import gnnlabpkg "example.com/p"`,
		`"F": gnnlabpkg.F,`,
		`"T": (*gnnlabpkg.T)(nil),`,
		`"Kind": (*gnnlabpkg.Kind)(nil),`,
		`"&V": &gnnlabpkg.V,`,
		`"K": gnnlabpkg.K,`,
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("source lacks %s:\n%s", want, src)
		}
	}
	for _, no := range []string{"Map", "\"G\"", "Big", "Name", "unexported"} {
		if strings.Contains(string(src), no) {
			t.Errorf("source holds %s:\n%s", no, src)
		}
	}
	if _, ok := untyped["Big"]; !ok || len(untyped) != 2 {
		t.Errorf("untyped = %v, want Big and Name", untyped)
	}
	if !slices.Equal(generic, []string{"G", "Map"}) {
		t.Errorf("generic = %v, want [G Map]", generic)
	}
	// A package of generic names alone is imported for its effect.
	src, _, generic = packageSource(checkPackage(t, "package p\n\nfunc Map[X any](x X) X { return x }\n"))
	if !strings.Contains(string(src), `import _ "example.com/p"`) || !slices.Equal(generic, []string{"Map"}) {
		t.Errorf("generic-only package: %v\n%s", generic, src)
	}
}
