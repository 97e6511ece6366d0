package helpers

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// MacroBodies returns, by "path.Name", each generic function of the
// macros.go files as the function literal that replaces its callee at a
// call: on one line, so that the positions after the call stay where they
// were, and without comments. In it {0}, {1}... stand for the function's
// type parameters in order, {pkg} for the file's name of the package
// itself (sync.Once in package sync's file), and a generic type of the
// package (iter's Seq[V]) is written as its underlying type, so that the
// literal names only what the cell can name. PFX before a name is still to
// be replaced, as in Std.
func MacroBodies() map[string]string {
	m := map[string]string{}
	for path, dir := range MacroPackages {
		fset := token.NewFileSet()
		parsed := map[string]*ast.File{}
		own := map[string]typeDef{} // the package's generic types
		for _, name := range []string{"macros.go", dir + ".go"} {
			src, err := files.ReadFile("std/" + dir + "/" + name)
			if err != nil {
				continue // dir.go is optional
			}
			f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				panic("helpers: " + err.Error())
			}
			parsed[name] = f
			for _, d := range f.Decls {
				if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
					for _, s := range gd.Specs {
						if ts := s.(*ast.TypeSpec); ts.TypeParams != nil {
							own[ts.Name.Name] = typeDef{ts, f, string(src)}
						}
					}
				}
			}
		}
		f := parsed["macros.go"]
		src := read("std/" + dir + "/macros.go")
		self := ""
		for _, is := range f.Imports {
			if p, _ := strconv.Unquote(is.Path.Value); p == path {
				self = f.Name.Name // macros.go is a file of package path's name
				if is.Name != nil {
					self = is.Name.Name
				}
			}
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Type.TypeParams == nil {
				continue
			}
			r := renderer{src: src, file: f, self: self, own: own, subst: map[string]string{}}
			k := 0
			for _, field := range fd.Type.TypeParams.List {
				for _, n := range field.Names {
					r.subst[n.Name] = "{" + strconv.Itoa(k) + "}"
					k++
				}
			}
			lit := "func" + r.render(fd.Type.Params)
			if fd.Type.Results != nil {
				lit += " " + r.render(fd.Type.Results)
			}
			m[path+"."+fd.Name.Name] = oneLine(lit + " " + r.render(fd.Body))
		}
	}
	return m
}

// typeDef is a generic type declared in a file whose text is src.
type typeDef struct {
	spec *ast.TypeSpec
	file *ast.File
	src  string
}

// renderer writes the text of a node of file (text src) with the
// identifiers of subst replaced, the package's own name self by {pkg},
// the instances of the generic types own by their underlying types and
// the comments dropped.
type renderer struct {
	src   string
	file  *ast.File
	self  string
	subst map[string]string
	own   map[string]typeDef
}

type edit struct {
	pos, end int // offsets in src
	text     string
}

func (r renderer) render(n ast.Node) string {
	off := func(p token.Pos) int { return int(p - r.file.FileStart) }
	var edits []edit
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if t, ok := r.subst[x.Name]; ok {
				edits = append(edits, edit{off(x.Pos()), off(x.End()), t})
			}
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && r.self != "" && id.Name == r.self {
				edits = append(edits, edit{off(id.Pos()), off(id.End()), "{pkg}"})
				return false
			}
		case *ast.IndexExpr:
			if t, ok := r.instance(x.X, []ast.Expr{x.Index}); ok {
				edits = append(edits, edit{off(x.Pos()), off(x.End()), t})
				return false
			}
		case *ast.IndexListExpr:
			if t, ok := r.instance(x.X, x.Indices); ok {
				edits = append(edits, edit{off(x.Pos()), off(x.End()), t})
				return false
			}
		}
		return true
	})
	for _, cg := range r.file.Comments {
		for _, c := range cg.List {
			if c.Pos() >= n.Pos() && c.End() <= n.End() {
				edits = append(edits, edit{off(c.Pos()), off(c.End()), ""})
			}
		}
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.pos - b.pos })
	var b strings.Builder
	at := off(n.Pos())
	for _, e := range edits {
		if e.pos < at {
			continue // inside a node already replaced
		}
		b.WriteString(r.src[at:e.pos])
		b.WriteString(e.text)
		at = e.end
	}
	b.WriteString(r.src[at:off(n.End())])
	return b.String()
}

// instance returns the underlying type of the instance x[args] of a
// generic type of the package, with args in place of its parameters.
func (r renderer) instance(x ast.Expr, args []ast.Expr) (string, bool) {
	id, ok := x.(*ast.Ident)
	if !ok {
		return "", false
	}
	def, ok := r.own[id.Name]
	if !ok {
		return "", false
	}
	in := renderer{src: def.src, file: def.file, own: r.own, subst: map[string]string{}}
	k := 0
	for _, field := range def.spec.TypeParams.List {
		for _, n := range field.Names {
			if k < len(args) {
				in.subst[n.Name] = r.render(args[k])
			}
			k++
		}
	}
	return in.render(def.spec.Type), true
}

// oneLine writes Go source on one line: a line break where Go inserts a
// semicolon becomes "; ", or a space before a closing ")" or "}", where
// Go lets the semicolon go; another line break becomes a space.
func oneLine(src string) string {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), nil, 0)
	var b strings.Builder
	end := -1 // the offset after the last token written
	semi := false
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			semi = true
			continue
		}
		at := file.Offset(pos)
		switch {
		case semi && (tok == token.RBRACE || tok == token.RPAREN):
			b.WriteString(" ") // Go lets a semicolon before these go
		case semi:
			b.WriteString("; ")
		case end >= 0 && strings.Contains(src[end:at], "\n"):
			b.WriteString(" ")
		case end >= 0:
			b.WriteString(src[end:at])
		}
		semi = false
		if lit == "" {
			lit = tok.String()
		}
		b.WriteString(lit)
		end = at + len(lit)
	}
	return b.String()
}
