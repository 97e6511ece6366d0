package interp

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gnnlab/gnnlab/interp/symbols"
)

// Inspect returns documentation (signature and doc comment, and for a
// compiled symbol its first runnable example) for the identifier at cursor
// (a byte offset); detail > 0 (name??) asks for the declaration's source
// too: the cell's text of the user's declarations, the package's source of
// compiled ones.
func (s *Session) Inspect(code string, cursor, detail int) (text string, found bool) {
	start, end, qual := identAt(code, cursor)
	name := code[start:end]
	if name == "" {
		// In a call's arguments (f(|, f(a, |): the callee (inspectcall.go).
		if open := callOpen(code, cursor); open > 0 {
			return s.Inspect(code, open, detail)
		}
		return "", false
	}
	if qual == "" {
		if r, ok := s.user[name]; ok {
			return userDoc(r, detail), true
		}
		if v, ok := globalsOf(s.i)[name]; ok && v.IsValid() {
			val := fmt.Sprintf("%v", v)
			if len(val) > 200 {
				val = val[:200] + "…"
			}
			return fmt.Sprintf("var %s %s\n\n%s", name, v.Type(), val), true
		}
		if p, ok := s.importPath(name); ok {
			return packageDoc(p), true
		}
		if start == 0 || code[start-1] != '.' {
			return "", false
		}
	}
	if parts := strings.Split(qual, "."); qual != "" && len(parts) == 1 {
		if _, isVar := globalsOf(s.i)[qual]; !isVar {
			if p, ok := s.importPath(qual); ok {
				return symbolDetail(p, name, detail) // inspectsrc.go
			}
		}
		if text, ok := methodDetail(globalsOf(s.i)[qual], name, detail); ok {
			return text, true
		}
		if r, ok := s.user[qual]; ok && r.tok == token.TYPE {
			if m, ok := s.user[qual+"."+name]; ok {
				return userDoc(m, detail), true
			}
		}
	}
	// pkg.Type.Method.
	if parts := strings.Split(qual, "."); len(parts) == 2 {
		if _, isVar := globalsOf(s.i)[parts[0]]; !isVar {
			if p, ok := s.importPath(parts[0]); ok {
				if text, ok := symbolDetail(p, parts[1]+"."+name, detail); ok {
					return text, true
				}
			}
		}
	}
	// x.Method of a value of an interpreted type.
	for _, t := range s.user {
		if t.tok != token.TYPE {
			continue
		}
		for _, tn := range t.names {
			if m, ok := s.user[tn+"."+name]; ok && m.method {
				return userDoc(m, detail), true
			}
		}
	}
	return "", false
}

func userDoc(r *declRec, detail int) string {
	text := r.sig
	if detail > 0 {
		text = r.text
	}
	if r.doc != "" {
		text += "\n\n" + strings.TrimRight(r.doc, "\n")
	}
	return text + fmt.Sprintf("\n\n(defined in cell[%d])", r.cell)
}

// symbolDoc documents pkg.name: the generated table for gnnlab packages,
// the Go sources of the standard library, else the symbol's type.
func symbolDoc(importPath, name string) (string, bool) {
	if d, ok := symbols.Docs[importPath+"."+name]; ok {
		return d, true
	}
	if d, ok := stdDocs(importPath)[name]; ok {
		return d, true
	}
	if v, ok := packages().byPath[importPath][name]; ok {
		return fmt.Sprintf("%s.%s %s", importPath, name, v.Type()), true
	}
	return "", false
}

func packageDoc(importPath string) string {
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
	add := func(key string, decl ast.Node, text string) { docs[key] = declDoc(fset, decl, text) }
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

func declDoc(fset *token.FileSet, decl ast.Node, text string) string {
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
	_ = printer.Fprint(&buf, fset, decl)
	if text != "" {
		buf.WriteString("\n\n" + strings.TrimRight(text, "\n"))
	}
	return buf.String()
}
