package helpers

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestOneLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a := 1\nb := 2", "a := 1; b := 2"},
		{"if x {\n\treturn\n}", "if x { return }"},
		{"f(a,\n\tb)", "f(a, b)"},
		{"ok := a &&\n\tb", "ok := a && b"},
		{"x := 1 // one\ny := 2", "x := 1; y := 2"},
		{"s := \"a  b\"\n\n\nt := s", "s := \"a  b\"; t := s"},
		{"select {\ncase <-c:\n}\n<-d", "select { case <-c: }; <-d"},
		{"type kv struct {\n\tk int\n\tv string\n}", "type kv struct { k int; v string }"},
	}
	for _, tt := range tests {
		if got := oneLine(tt.in); got != tt.want {
			t.Errorf("oneLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestMacroBodies checks that every generic function of the macros.go
// files has a literal that parses, on one line, and that the renaming is
// exact: each identifier spelled like a type parameter is that type
// parameter (go/types), each one spelled like the package's own import
// names the package, and no generic type of the package is left.
func TestMacroBodies(t *testing.T) {
	bodies := MacroBodies()
	placeholder := regexp.MustCompile(`\{(\d+|pkg)\}`)
	n := 0
	for path, dir := range MacroPackages {
		fset := token.NewFileSet()
		var parsed []*ast.File
		entries, err := fs.ReadDir(files, "std/"+dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			f, err := parser.ParseFile(fset, e.Name(), read("std/"+dir+"/"+e.Name()), 0)
			if err != nil {
				t.Fatal(err)
			}
			parsed = append(parsed, f)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
		if _, err := conf.Check(dir, fset, parsed, info); err != nil {
			t.Fatalf("std/%s: %v", dir, err)
		}
		for _, f := range parsed {
			if fset.File(f.Pos()).Name() != "macros.go" {
				continue
			}
			self := ""
			for _, is := range f.Imports {
				if p, _ := strconv.Unquote(is.Path.Value); p == path {
					self = f.Name.Name
				}
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Type.TypeParams == nil {
					continue
				}
				n++
				name := path + "." + fd.Name.Name
				tparams := map[string]types.Object{}
				for _, field := range fd.Type.TypeParams.List {
					for _, id := range field.Names {
						tparams[id.Name] = info.Defs[id]
					}
				}
				ast.Inspect(fd, func(n ast.Node) bool {
					id, ok := n.(*ast.Ident)
					if !ok || info.Defs[id] == tparams[id.Name] {
						return true
					}
					if tp, ok := tparams[id.Name]; ok && info.Uses[id] != tp {
						t.Errorf("%s: %s at %s is not the type parameter", name, id.Name, fset.Position(id.Pos()))
					}
					if _, ok := info.Uses[id].(*types.PkgName); ok && id.Name != self {
						t.Errorf("%s: package %s at %s is not the package itself, which a cell may not have imported", name, id.Name, fset.Position(id.Pos()))
					}
					return true
				})
				body, ok := bodies[name]
				if !ok {
					t.Errorf("MacroBodies()[%q] is missing", name)
					continue
				}
				if strings.Contains(body, "\n") {
					t.Errorf("%s: body has a line break: %q", name, body)
				}
				for _, m := range placeholder.FindAllStringSubmatch(body, -1) {
					if k, err := strconv.Atoi(m[1]); err == nil && k >= len(tparams) {
						t.Errorf("%s: %s, but %d type parameters", name, m[0], len(tparams))
					}
				}
				src := placeholder.ReplaceAllString(body, "T$1")
				e, err := parser.ParseExpr(src)
				if err != nil {
					t.Errorf("%s: %v in %s", name, err, src)
					continue
				}
				if _, ok := e.(*ast.FuncLit); !ok {
					t.Errorf("%s: %T, want a function literal", name, e)
				}
				if strings.Contains(body, "Seq[") || strings.Contains(body, "Seq2[") {
					t.Errorf("%s: a generic type of iter is left: %s", name, body)
				}
			}
		}
	}
	if n != len(bodies) {
		t.Errorf("%d generic functions in the macros.go files, %d bodies", n, len(bodies))
	}
	if n == 0 {
		t.Error("no macros found")
	}
}

// BenchmarkMacroBodies measures what the rewrite package pays once, when
// it is initialised, to derive the literals from the macros.go files.
func BenchmarkMacroBodies(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		MacroBodies()
	}
}

// BenchmarkMacroSources measures the declarations go/types is given.
func BenchmarkMacroSources(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		MacroSources()
	}
}
