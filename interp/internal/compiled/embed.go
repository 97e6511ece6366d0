package compiled

import (
	"encoding/json"
	"go/ast"
	"go/scanner"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// embedFiles checks the //go:embed directives of a cell's declarations
// and returns the files each variable declaration embeds: pattern -> the
// file's path in dir (the session's working directory, where the
// notebook is). What compiles: a directive on a variable of type string
// or []byte, naming one regular file by its path (no glob, no directory,
// no "..") in a cell that imports "embed" blank. Otherwise reason says
// why the cell stays interpreted; no directive gives neither.
func embedFiles(df *ast.File, dir string) (files map[ast.Decl]map[string]string, reason string) {
	directives := 0
	for _, cg := range df.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:embed") {
				directives++
			}
		}
	}
	if directives == 0 {
		return nil, ""
	}
	blank := false
	for _, is := range df.Imports {
		if p, _ := strconv.Unquote(is.Path.Value); p == "embed" {
			if is.Name == nil || is.Name.Name != "_" {
				return nil, "//go:embed into an embed.FS is not compiled yet (only into a string or []byte, with import _ \"embed\")"
			}
			blank = true
		}
	}
	if !blank {
		return nil, "//go:embed needs import _ \"embed\""
	}
	files = map[ast.Decl]map[string]string{}
	found := 0
	for _, d := range df.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			doc := vs.Doc
			if doc == nil && len(gd.Specs) == 1 {
				doc = gd.Doc
			}
			if doc == nil {
				continue
			}
			for _, c := range doc.List {
				args, ok := strings.CutPrefix(c.Text, "//go:embed")
				if !ok {
					continue
				}
				found++
				if len(gd.Specs) != 1 || len(vs.Names) != 1 || vs.Values != nil || !stringOrBytes(vs.Type) {
					return nil, "//go:embed of a variable that is not one string or []byte is not compiled yet"
				}
				for _, pat := range strings.Fields(args) {
					if p, err := strconv.Unquote(pat); err == nil {
						pat = p
					}
					if strings.ContainsAny(pat, "*?[\\") || !validEmbedPath(pat) {
						return nil, "//go:embed " + pat + ": only a plain file path is compiled (no glob, no \"..\")"
					}
					full := filepath.Join(dir, filepath.FromSlash(pat))
					fi, err := os.Stat(full)
					switch {
					case err == nil && fi.IsDir():
						return nil, "//go:embed " + pat + ": a directory: only a file is compiled (into a string or []byte)"
					case err != nil || !fi.Mode().IsRegular():
						return nil, "//go:embed " + pat + ": no such file in " + dir
					}
					if files[d] == nil {
						files[d] = map[string]string{}
					}
					files[d][pat] = full
				}
			}
		}
	}
	if found != directives {
		return nil, "a //go:embed directive is not on a variable declaration"
	}
	return files, ""
}

// validEmbedPath reports whether p is a clean relative path that stays
// in the directory (io/fs.ValidPath, less ".").
func validEmbedPath(p string) bool {
	return p != "." && path.Clean(p) == p && !strings.HasPrefix(p, "../") && p != ".." && !path.IsAbs(p)
}

// stringOrBytes reports whether a variable's declared type is string or
// []byte.
func stringOrBytes(t ast.Expr) bool {
	switch t := t.(type) {
	case *ast.Ident:
		return t.Name == "string"
	case *ast.ArrayType:
		id, ok := t.Elt.(*ast.Ident)
		return t.Len == nil && ok && id.Name == "byte"
	}
	return false
}

// copyEmbedded copies the files a cell embeds into its package
// directory, under the paths its directives name (the go command embeds
// only files of the package's directory), and writes the compiler's
// embed configuration there; it returns that configuration's path.
func copyEmbedded(pkgDir string, files map[string]string) (cfg string, err error) {
	type embedCfg struct {
		Patterns map[string][]string
		Files    map[string]string
	}
	ec := embedCfg{Patterns: map[string][]string{}, Files: map[string]string{}}
	for pat, from := range files {
		b, err := os.ReadFile(from)
		if err != nil {
			return "", err
		}
		to := filepath.Join(pkgDir, filepath.FromSlash(pat))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			return "", err
		}
		ec.Patterns[pat] = []string{pat}
		ec.Files[pat] = to
	}
	js, err := json.Marshal(ec)
	if err != nil {
		return "", err
	}
	cfg = filepath.Join(pkgDir, "embedcfg")
	return cfg, os.WriteFile(cfg, js, 0o644)
}

// blankEmbedImport blanks the import _ "embed" of a cell's text (alone,
// or its spec in an import group) in the imports the cell starts with.
func blankEmbedImport(text string, edits *editList) {
	var sc scanner.Scanner
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(text))
	sc.Init(f, []byte(text), nil, scanner.ScanComments)
	type tok struct {
		pos token.Pos
		tok token.Token
		lit string
	}
	var toks []tok
	for {
		pos, t, lit := sc.Scan()
		if t == token.EOF {
			break
		}
		if t != token.COMMENT && !(t == token.SEMICOLON && lit == "\n") {
			toks = append(toks, tok{pos, t, lit})
		}
	}
	end := func(t tok) int { return f.Offset(t.pos) + len(t.lit) }
	isEmbed := func(i int) bool {
		return i+1 < len(toks) && toks[i].tok == token.IDENT && toks[i].lit == "_" && toks[i+1].tok == token.STRING && toks[i+1].lit == `"embed"`
	}
	for i := 0; i < len(toks) && toks[i].tok == token.IMPORT; {
		switch {
		case i+1 < len(toks) && toks[i+1].tok == token.LPAREN:
			j := i + 2
			for ; j < len(toks) && toks[j].tok != token.RPAREN; j++ {
				if isEmbed(j) {
					edits.blank(f.Offset(toks[j].pos), end(toks[j+1]))
				}
			}
			i = j + 1
		case isEmbed(i + 1):
			edits.blank(f.Offset(toks[i].pos), end(toks[i+2]))
			i += 3
		default:
			i += 2 // import "path" or import name "path"
			if i < len(toks) && toks[i].tok == token.STRING {
				i++
			}
		}
		for i < len(toks) && toks[i].tok == token.SEMICOLON {
			i++
		}
	}
}

// embedVar reports whether decl declares one variable of type []byte
// or string by a //go:embed directive: it has no fields to select, so it
// compiles outside a program like a variable of a basic type.
func embedVar(decl ast.Decl) bool {
	gd, ok := decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR || len(gd.Specs) != 1 {
		return false
	}
	vs := gd.Specs[0].(*ast.ValueSpec)
	doc := vs.Doc
	if doc == nil {
		doc = gd.Doc
	}
	if doc == nil || len(vs.Names) != 1 || vs.Values != nil || !stringOrBytes(vs.Type) {
		return false
	}
	for _, c := range doc.List {
		if strings.HasPrefix(c.Text, "//go:embed") {
			return true
		}
	}
	return false
}
