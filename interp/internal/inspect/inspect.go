package inspect

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gnnlab/gnnlab/interp/internal/sigdoc"
	"github.com/gnnlab/gnnlab/interp/symbols"
)

// symbolDoc documents pkg.name: the generated table for gnnlab packages,
// the Go sources of the standard library, else the symbol's type.
func symbolDoc(importPath, name string) (string, bool) {
	if d, ok := symbols.Docs[importPath+"."+name]; ok {
		return d, true
	}
	if d, ok := stdDocs(importPath)[name]; ok {
		return d, true
	}
	if v, ok := Packages().ByPath[importPath][name]; ok {
		return fmt.Sprintf("%s.%s %s", importPath, name, v.Type()), true
	}
	return "", false
}

// PackageDoc is the doc of the package at importPath, or "package
// importPath" when there is none.
func PackageDoc(importPath string) string {
	if d, ok := symbols.Docs[importPath]; ok {
		return d
	}
	if d, ok := stdDocs(importPath)[""]; ok {
		return d
	}
	return "package " + importPath
}

var (
	stdDocMu    sync.Mutex
	stdDocCache = map[string]map[string]string{}
	gorootOnce  sync.Once
	goroot      string
)

func findGOROOT() string {
	gorootOnce.Do(func() {
		goroot = os.Getenv("GOROOT")
		if goroot == "" {
			if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
				goroot = strings.TrimSpace(string(out))
			}
		}
	})
	return goroot
}

// stdDocs parses a standard package's sources once and returns its
// symbols' docs ("" is the package doc); empty when there are no sources.
func stdDocs(importPath string) map[string]string {
	stdDocMu.Lock()
	defer stdDocMu.Unlock()
	if d, ok := stdDocCache[importPath]; ok {
		return d
	}
	docs := map[string]string{}
	stdDocCache[importPath] = docs
	root := findGOROOT()
	if root == "" {
		return docs
	}
	// go/build picks the files of the default build, as yaegi's tables.
	bp, err := build.Default.ImportDir(filepath.Join(root, "src", importPath), 0)
	if err != nil {
		return docs
	}
	fset := token.NewFileSet()
	files := make([]*ast.File, 0, len(bp.GoFiles))
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(bp.Dir, name), nil, parser.ParseComments)
		if err != nil {
			return docs
		}
		files = append(files, f)
	}
	dp, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil {
		return docs
	}
	docs[""] = "package " + dp.Name + " // import \"" + importPath + "\"\n\n" + dp.Doc
	add := func(key string, decl ast.Node, text string) { docs[key] = sigdoc.Decl(fset, decl, text) }
	for _, f := range dp.Funcs {
		add(f.Name, f.Decl, f.Doc)
	}
	for _, t := range dp.Types {
		add(t.Name, t.Decl, t.Doc)
		for _, f := range t.Funcs {
			add(f.Name, f.Decl, f.Doc)
		}
		for _, v := range append(t.Consts, t.Vars...) {
			for _, n := range v.Names {
				add(n, v.Decl, v.Doc)
			}
		}
	}
	for _, v := range append(dp.Consts, dp.Vars...) {
		for _, n := range v.Names {
			add(n, v.Decl, v.Doc)
		}
	}
	return docs
}
