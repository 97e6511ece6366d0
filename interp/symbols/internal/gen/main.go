// Command gen writes the yaegi symbol tables and the documentation table of
// the packages listed in packages.txt. See the doc of package symbols.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/traefik/yaegi/extract"
)

func main() {
	out := flag.String("o", ".", "output folder (holds packages.txt unless -list is set)")
	list := flag.String("list", "", "file listing the import paths, one a line (default: <o>/packages.txt)")
	std := flag.String("std", "", "file listing the standard library packages to extract from this toolchain (default: stdlib.txt beside the list)")
	flag.Parse()
	if *list == "" {
		*list = filepath.Join(*out, "packages.txt")
	}
	if *std == "" {
		*std = filepath.Join(filepath.Dir(*list), "stdlib.txt")
	}
	pkgs, err := readList(*list)
	if err != nil {
		log.Fatal(err)
	}
	stdPkgs, err := readList(*std)
	if err != nil {
		log.Fatal(err)
	}
	if err := generate(*out, pkgs, stdPkgs); err != nil {
		log.Fatal(err)
	}
}

func readList(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pkgs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pkgs = append(pkgs, line)
	}
	return pkgs, sc.Err()
}

func generate(out string, pkgs, std []string) error {
	ext := extract.Extractor{Dest: "symbols"}
	r := strings.NewReplacer("/", "-", ".", "_", "~", "_")
	// Standard library tables get no docs or examples (the session's
	// inspection of them goes through go/doc of the toolchain's sources).
	for _, p := range std {
		var buf bytes.Buffer
		importPath, err := ext.Extract(p, "", &buf)
		if err != nil {
			return fmt.Errorf("gen: extract %s: %w", p, err)
		}
		// Cells may use deprecated symbols too (strings.Title).
		src := bytes.Replace(buf.Bytes(), []byte("\npackage symbols\n"), []byte("\npackage symbols\n\n//lint:file-ignore SA1019 cells may use the deprecated symbols of the package too\n"), 1)
		if err := os.WriteFile(filepath.Join(out, "std-"+r.Replace(importPath)+".go"), src, 0o644); err != nil {
			return err
		}
	}
	docs := map[string]string{}
	examples := map[string]string{}
	for _, p := range pkgs {
		var buf bytes.Buffer
		importPath, err := ext.Extract(p, "", &buf)
		if err != nil {
			return fmt.Errorf("gen: extract %s: %w", p, err)
		}
		if err := os.WriteFile(filepath.Join(out, r.Replace(importPath)+".go"), buf.Bytes(), 0o644); err != nil {
			return err
		}
		if err := collectDocs(p, docs); err != nil {
			return fmt.Errorf("gen: docs of %s: %w", p, err)
		}
		if err := collectExamples(p, examples); err != nil {
			return fmt.Errorf("gen: examples of %s: %w", p, err)
		}
	}
	if err := writeTable(filepath.Join(out, "examples_gen.go"), "Examples", examplesDoc, examples); err != nil {
		return err
	}
	return writeDocs(filepath.Join(out, "docs_gen.go"), docs)
}

const examplesDoc = `// Examples maps "importpath.Name" and "importpath.Type.Method" to the
// first runnable example (one with an Output comment) of the symbol in the
// package's _test.go files: the example's body, as a cell would hold it,
// ending in its // Output: comment.
`

// collectExamples adds the first runnable example of each symbol that has
// one; examples of a function, type or method are named as go doc names
// them (ExampleNewGCN, ExampleGCN_Forward, ExampleNewGCN_second).
func collectExamples(path string, examples map[string]string) error {
	fset, files, err := parsePackage(path, true)
	if err != nil {
		return err
	}
	dp, err := doc.NewFromFiles(fset, files, path)
	if err != nil {
		return err
	}
	add := func(key string, exs []*doc.Example) {
		for _, ex := range exs {
			if ex.Output == "" && !ex.EmptyOutput {
				continue // not run by go test: it may not work
			}
			if text, ok := exampleText(fset, ex); ok {
				examples[key] = text
				return
			}
		}
	}
	for _, f := range dp.Funcs {
		add(path+"."+f.Name, f.Examples)
	}
	for _, t := range dp.Types {
		add(path+"."+t.Name, t.Examples)
		for _, f := range t.Funcs {
			add(path+"."+f.Name, f.Examples)
		}
		for _, m := range t.Methods {
			add(path+"."+t.Name+"."+m.Name, m.Examples)
		}
	}
	return nil
}

// exampleText is the body of ex without its braces, one indent less,
// with its comments (the // Output: comment that checks it included).
func exampleText(fset *token.FileSet, ex *doc.Example) (string, bool) {
	body, ok := ex.Code.(*ast.BlockStmt)
	if !ok {
		return "", false // a whole-file example
	}
	var buf bytes.Buffer
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(&buf, fset, &printer.CommentedNode{Node: body, Comments: ex.Comments}); err != nil {
		return "", false
	}
	code := strings.TrimSpace(buf.String())
	code = strings.TrimSuffix(strings.TrimPrefix(code, "{"), "}")
	var lines []string
	for _, l := range strings.Split(strings.Trim(code, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n\t "), true
}

// writeTable writes a generated map[string]string named name.
func writeTable(file, name, doc string, m map[string]string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.WriteString("// Code generated by gnnlab interp/symbols/internal/gen. DO NOT EDIT.\n\npackage symbols\n\n")
	buf.WriteString(doc + "var " + name + " = map[string]string{\n")
	for _, k := range keys {
		fmt.Fprintf(&buf, "\t%q: %q,\n", k, m[k])
	}
	buf.WriteString("}\n")
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return err
	}
	return os.WriteFile(file, src, 0o644)
}

// parsePackage parses the Go files of the package at path, with comments,
// and its _test.go files too when tests is set (for the examples).
func parsePackage(path string, tests bool) (*token.FileSet, []*ast.File, error) {
	bp, err := build.Import(path, ".", 0)
	if err != nil {
		return nil, nil, err
	}
	names := bp.GoFiles
	if tests {
		names = append(append(append([]string(nil), bp.GoFiles...), bp.TestGoFiles...), bp.XTestGoFiles...)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(bp.Dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	return fset, files, nil
}

// collectDocs adds "path.Name" (and "path.Type.Method") keys with the
// declaration text, a blank line and the doc comment.
func collectDocs(path string, docs map[string]string) error {
	fset, files, err := parsePackage(path, false)
	if err != nil {
		return err
	}
	{
		dp, err := doc.NewFromFiles(fset, files, path)
		if err != nil {
			return err
		}
		docs[path] = "package " + dp.Name + " // import \"" + path + "\"\n\n" + dp.Doc
		for _, f := range dp.Funcs {
			docs[path+"."+f.Name] = entry(fset, f.Decl, f.Doc)
		}
		for _, t := range dp.Types {
			docs[path+"."+t.Name] = entry(fset, t.Decl, t.Doc)
			for _, f := range t.Funcs {
				docs[path+"."+f.Name] = entry(fset, f.Decl, f.Doc)
			}
			for _, m := range t.Methods {
				docs[path+"."+t.Name+"."+m.Name] = entry(fset, m.Decl, m.Doc)
			}
			addValues(fset, path, t.Consts, docs)
			addValues(fset, path, t.Vars, docs)
		}
		addValues(fset, path, dp.Consts, docs)
		addValues(fset, path, dp.Vars, docs)
	}
	return nil
}

func addValues(fset *token.FileSet, path string, vals []*doc.Value, docs map[string]string) {
	for _, v := range vals {
		for _, n := range v.Names {
			if token.IsExported(n) {
				docs[path+"."+n] = entry(fset, v.Decl, v.Doc)
			}
		}
	}
}

func entry(fset *token.FileSet, decl ast.Node, text string) string {
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
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	_ = cfg.Fprint(&buf, fset, decl)
	s := buf.String()
	if text != "" {
		s += "\n\n" + strings.TrimRight(text, "\n")
	}
	return s
}

func writeDocs(name string, docs map[string]string) error {
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.WriteString("// Code generated by gnnlab interp/symbols/internal/gen. DO NOT EDIT.\n\npackage symbols\n\n")
	buf.WriteString("// Docs maps \"importpath.Name\" and \"importpath.Type.Method\" to the\n// declaration and doc comment of the exported symbols of the extracted\n// packages, and \"importpath\" to the package's doc.\nvar Docs = map[string]string{\n")
	for _, k := range keys {
		fmt.Fprintf(&buf, "\t%q: %q,\n", k, docs[k])
	}
	buf.WriteString("}\n")
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return err
	}
	return os.WriteFile(name, src, 0o644)
}
