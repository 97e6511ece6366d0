package rewrite

import (
	"bytes"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/passes")

// An archive is a txtar file: a comment, then files, each after a line
// "-- name --".
type archive struct {
	comment string
	files   []archiveFile
}

type archiveFile struct{ name, data string }

func parseArchive(b string) archive {
	var a archive
	cur := &a.comment
	for line := range strings.Lines(b) {
		if name, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "-- "); ok && strings.HasSuffix(name, " --") {
			a.files = append(a.files, archiveFile{name: strings.TrimSuffix(name, " --")})
			cur = &a.files[len(a.files)-1].data
			continue
		}
		*cur += line
	}
	return a
}

func (a archive) get(name string) (string, bool) {
	for _, f := range a.files {
		if f.name == name {
			return f.data, true
		}
	}
	return "", false
}

func (a *archive) set(name, data string) {
	for k := range a.files {
		if a.files[k].name == name {
			a.files[k].data = data
			return
		}
	}
	a.files = append(a.files, archiveFile{name, data})
}

func (a archive) format() []byte {
	var b bytes.Buffer
	b.WriteString(a.comment)
	for _, f := range a.files {
		b.WriteString("-- " + f.name + " --\n" + f.data)
		if f.data != "" && !strings.HasSuffix(f.data, "\n") {
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

// testCell parses a cell given as two files: decls.go (a file of package
// main: imports and declarations) and stmts.go (statements, the body of
// a function), and type-checks them together as the session does.
func testCell(t *testing.T, decls, stmts string) (*Cell, *types.Info) {
	t.Helper()
	fset := token.NewFileSet()
	df, err := parser.ParseFile(fset, "decls.go", decls, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	stmtSrc := "package main\n\nfunc _() {\n" + stmts + "}\n"
	sf, err := parser.ParseFile(fset, "stmts.go", stmtSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	body := sf.Decls[len(sf.Decls)-1].(*ast.FuncDecl).Body
	// The statements see the declarations' imports, as a cell's do.
	for _, is := range df.Imports {
		sf.Decls = append([]ast.Decl{&ast.GenDecl{Tok: token.IMPORT, Specs: []ast.Spec{is}}}, sf.Decls...)
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Uses:       map[*ast.Ident]types.Object{},
		Defs:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances:  map[*ast.Ident]types.Instance{},
	}
	conf := types.Config{Importer: Importer, Error: func(err error) {}}
	_, _ = conf.Check("main", fset, []*ast.File{df, sf}, info)
	return &Cell{Fset: fset, Decls: df, DeclSrc: decls, Body: body, StmtSrc: stmtSrc,
		HasDecls: len(df.Decls) > 0, HasStmts: len(body.List) > 0}, info
}

// rewritten returns the cell's declarations and statements after the
// passes of suite.
func rewritten(t *testing.T, a archive, suite []Pass) (string, string) {
	t.Helper()
	decls, _ := a.get("decls.go")
	stmts, _ := a.get("stmts.go")
	c, info := testCell(t, decls, stmts)
	seq := 0
	env := Env{Names: map[string]string{}, Seq: &seq}
	for _, is := range c.Decls.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		env.Names[p] = p[strings.LastIndex(p, "/")+1:]
	}
	// globals: a session variable of type int a line; env: "replay".
	globals, _ := a.get("globals")
	for _, name := range strings.Fields(globals) {
		if env.Globals == nil {
			env.Globals = map[string]reflect.Value{}
		}
		env.Globals[name] = reflect.ValueOf(new(int)).Elem()
	}
	if e, _ := a.get("env"); strings.Contains(e, "replay") {
		env.Replay = true
	}
	out, err := apply(c, info, env, suite)
	if err != nil {
		return "error: " + err.Error() + "\n", ""
	}
	d := out.Decl.Editor().Text(c.Decls.Pos(), c.Decls.End(), false) + out.Decl.GoDecls()
	s := strings.TrimPrefix(out.Stmt.Editor().Text(c.Body.Lbrace+1, c.Body.Rbrace, false), "\n") + out.Stmt.GoDecls()
	return d, s
}

// TestPasses runs each pass of the Suite, alone and with the whole suite,
// over the cells of its golden file testdata/passes/NAME.txtar, and
// compares the rewritten text with the file's; go test -update writes
// it. Every pass has a golden file, and every golden file a pass.
func TestPasses(t *testing.T) {
	names := map[string]bool{}
	for _, p := range Suite {
		names[p.Name] = true
		t.Run(p.Name, func(t *testing.T) {
			file := filepath.Join("testdata", "passes", p.Name+".txtar")
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("pass %s has no golden file: %v", p.Name, err)
			}
			a := parseArchive(string(b))
			got := map[string]string{}
			got["pass/decls"], got["pass/stmts"] = rewritten(t, a, []Pass{p})
			got["suite/decls"], got["suite/stmts"] = rewritten(t, a, Suite)
			for k, v := range got {
				if !strings.HasSuffix(v, "\n") {
					got[k] = v + "\n" // as the archive holds it
				}
			}
			decls, _ := a.get("decls.go")
			stmts, _ := a.get("stmts.go")
			if strings.TrimSpace(got["pass/decls"]) == strings.TrimSpace(decls) && strings.TrimSpace(got["pass/stmts"]) == strings.TrimSpace(stmts) {
				t.Errorf("%s: the pass alone leaves the cell as it is; give it a cell it rewrites", file)
			}
			if *update {
				for _, k := range []string{"pass/decls", "pass/stmts", "suite/decls", "suite/stmts"} {
					a.set(k, got[k])
				}
				if err := os.WriteFile(file, a.format(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, k := range []string{"pass/decls", "pass/stmts", "suite/decls", "suite/stmts"} {
				if want, _ := a.get(k); got[k] != want {
					t.Errorf("%s: %s =\n%s\nwant\n%s", file, k, got[k], want)
				}
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "passes", "*.txtar"))
	for _, f := range files {
		if n := strings.TrimSuffix(filepath.Base(f), ".txtar"); !names[n] {
			t.Errorf("%s is the golden file of no pass of the Suite", f)
		}
	}
}

// TestSuiteOrder checks what Apply relies on: pass names are unique, and
// every pass has a doc, and a section "# Pass NAME" in the package doc.
func TestSuiteOrder(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range Suite {
		if seen[p.Name] {
			t.Errorf("two passes are named %s", p.Name)
		}
		seen[p.Name] = true
		if p.Doc == "" || (p.Run == nil) == (p.Node == nil) || p.Part&Both == 0 {
			t.Errorf("pass %s lacks a doc or a part, or has not one of Run and Node", p.Name)
		}
		if !bytes.Contains(doc, []byte("\n// # Pass "+p.Name+"\n")) {
			t.Errorf("doc.go has no section # Pass %s", p.Name)
		}
	}
}
