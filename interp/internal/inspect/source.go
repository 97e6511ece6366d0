package inspect

import (
	"bytes"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/gnnlab/gnnlab/interp/internal/declname"
	"github.com/gnnlab/gnnlab/interp/internal/sigdoc"
	"github.com/gnnlab/gnnlab/interp/symbols"
)

// SymbolDetail documents pkg.name ("Type.Method" too) for Shift-Tab and
// name?: the signature and doc (symbolDoc), then the symbol's first
// runnable example; detail > 0 (name??) adds its source, read from the
// package's files where the binary was built.
func SymbolDetail(importPath, name string, detail int) (string, bool) {
	text, ok := symbolDoc(importPath, name)
	if !ok {
		return "", false
	}
	if ex, ok := symbols.Examples[importPath+"."+name]; ok {
		text += "\n\nExample:\n\n" + indentText(ex)
	}
	if detail > 0 {
		if src, where, ok := compiledSource(importPath, name); ok {
			text += "\n\nSource (" + where + "):\n\n" + src
		} else {
			text += "\n\n(no source: the package's files are not where this binary was built)"
		}
	}
	return text, true
}

// MethodDetail documents v.name where v is a session variable of a
// compiled named type (model.Forward): the method's doc, or nil.
func MethodDetail(v reflect.Value, name string, detail int) (string, bool) {
	if !v.IsValid() || !token.IsExported(name) {
		return "", false
	}
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" || t.PkgPath() == "" {
		return "", false
	}
	return SymbolDetail(t.PkgPath(), t.Name()+"."+name, detail)
}

func indentText(s string) string {
	return "\t" + strings.ReplaceAll(s, "\n", "\n\t")
}

var (
	srcMu    sync.Mutex
	srcCache = map[string]*srcPackage{} // by import path; nil: not found
)

type srcPackage struct {
	fset  *token.FileSet
	files []*ast.File
}

// compiledSource returns the declaration of importPath.name from the
// package's source files, and where it is (file:line).
func compiledSource(importPath, name string) (src, where string, ok bool) {
	p := loadSource(importPath)
	if p == nil {
		return "", "", false
	}
	recv, member, isMethod := strings.Cut(name, ".")
	for _, f := range p.files {
		for _, d := range f.Decls {
			var node ast.Node
			switch d := d.(type) {
			case *ast.FuncDecl:
				switch {
				case isMethod && d.Recv != nil && d.Name.Name == member && len(d.Recv.List) > 0 && declname.Recv(d.Recv.List[0].Type) == recv:
					node = d
				case !isMethod && d.Recv == nil && d.Name.Name == name:
					node = d
				}
			case *ast.GenDecl:
				if !isMethod && declares(d, name) {
					node = d
				}
			}
			if node == nil {
				continue
			}
			var buf bytes.Buffer
			if err := sigdoc.Config.Fprint(&buf, p.fset, &printer.CommentedNode{Node: node, Comments: f.Comments}); err != nil {
				return "", "", false
			}
			pos := p.fset.Position(node.Pos())
			return buf.String(), filepath.Base(pos.Filename) + ":" + strconv.Itoa(pos.Line), true
		}
	}
	return "", "", false
}

func declares(d *ast.GenDecl, name string) bool {
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			if s.Name.Name == name {
				return true
			}
		case *ast.ValueSpec:
			for _, n := range s.Names {
				if n.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// loadSource parses the package's files of the default build once: in
// the folder of one of its compiled functions (as the binary was built),
// else under GOROOT for the standard library.
func loadSource(importPath string) *srcPackage {
	srcMu.Lock()
	defer srcMu.Unlock()
	if p, ok := srcCache[importPath]; ok {
		return p
	}
	srcCache[importPath] = nil
	var dirs []string
	for _, v := range Packages().ByPath[importPath] {
		if v.Kind() != reflect.Func || v.IsNil() {
			continue
		}
		if fn := runtime.FuncForPC(v.Pointer()); fn != nil {
			if file, _ := fn.FileLine(fn.Entry()); strings.HasSuffix(file, ".go") {
				dirs = append(dirs, filepath.Dir(file))
				break
			}
		}
	}
	if root := findGOROOT(); root != "" {
		dirs = append(dirs, filepath.Join(root, "src", importPath))
	}
	for _, dir := range dirs {
		bp, err := build.Default.ImportDir(dir, 0)
		if err != nil {
			continue
		}
		p := &srcPackage{fset: token.NewFileSet()}
		for _, name := range bp.GoFiles {
			f, err := parser.ParseFile(p.fset, filepath.Join(dir, name), nil, parser.ParseComments)
			if err == nil {
				p.files = append(p.files, f)
			}
		}
		if len(p.files) > 0 {
			srcCache[importPath] = p
			return p
		}
	}
	return nil
}
