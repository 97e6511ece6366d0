package rt

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// helperNames returns the helpers that names.go declares: constant name
// to the name it writes after Import + ".".
func helperNames(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "names.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			be, ok := vs.Values[0].(*ast.BinaryExpr)
			if !ok {
				continue // Path, Import
			}
			x, _ := be.X.(*ast.Ident)
			lit, _ := be.Y.(*ast.BasicLit)
			if x == nil || x.Name != "Import" || lit == nil {
				t.Fatalf("%s = %v, want Import + \".Name\"", vs.Names[0].Name, be)
			}
			v, _ := strconv.Unquote(lit.Value)
			names[vs.Names[0].Name] = strings.TrimPrefix(v, ".")
		}
	}
	return names
}

// TestTableMatchesNames proves that the runtime's table exports every
// helper of names.go under the name the constant writes, and no other.
func TestTableMatchesNames(t *testing.T) {
	table := New(&bytes.Buffer{}, make(chan int, 1)).table()
	names := helperNames(t)
	for c, n := range names {
		if c != n {
			t.Errorf("constant %s writes %s.%s, want %s.%s", c, Import, n, Import, c)
		}
		if v, ok := table[n]; !ok || !v.IsValid() {
			t.Errorf("names.go has %s, the runtime's table does not export it", n)
		}
	}
	for n := range table {
		if _, ok := names[n]; !ok {
			t.Errorf("the runtime's table exports %s, names.go has no constant for it", n)
		}
	}
}

// rewriteSources are the files whose code writes rewritten cells: the
// session's package (its Go files, not tests) and the helper source it
// evaluates.
func rewriteSources(t *testing.T) map[string][]byte {
	t.Helper()
	var files []string
	for _, pat := range []string{"../../*.go", "../rewrite/*.go", "../helpers/*/*.go", "../helpers/*/*/*.go"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	src := map[string][]byte{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src[f] = b
	}
	if len(src) == 0 {
		t.Fatal("no rewrite sources found")
	}
	return src
}

// TestRewritesUseNames proves that the rewrites write only helpers the
// runtime exports, through the constants of names.go (a string literal
// naming one is a contract that no compiler checks), and that every
// helper the runtime exports is written somewhere.
func TestRewritesUseNames(t *testing.T) {
	names := helperNames(t)
	used := map[string]bool{}
	inText := regexp.MustCompile(regexp.QuoteMeta(Import) + `\.([A-Za-z_][A-Za-z0-9_]*)`)
	for file, b := range rewriteSources(t) {
		f, err := parser.ParseFile(token.NewFileSet(), file, b, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		goSource := f.Name.Name == "main" // helper source: Go the session evaluates
		rtName := ""
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); strings.HasSuffix(p, "/interp/internal/rt") {
				rtName = "rt"
				if im.Name != nil {
					rtName = im.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					break
				}
				for _, m := range inText.FindAllStringSubmatch(n.Value, -1) {
					t.Errorf("%s: a string literal writes %s.%s; write the constant rt.%s", file, Import, m[1], m[1])
				}
			case *ast.SelectorExpr:
				x, ok := n.X.(*ast.Ident)
				if !ok {
					break
				}
				if goSource && x.Name == Import || rtName != "" && x.Name == rtName {
					if _, ok := names[n.Sel.Name]; ok {
						used[n.Sel.Name] = true
					} else if goSource {
						t.Errorf("%s: %s.%s is not a helper of the runtime", file, Import, n.Sel.Name)
					}
				}
			}
			return true
		})
	}
	var unused []string
	for n := range names {
		if !used[n] {
			unused = append(unused, n)
		}
	}
	slices.Sort(unused)
	if len(unused) > 0 {
		t.Errorf("the runtime exports helpers that no rewrite writes: %v", unused)
	}
}
