package interp

import (
	"github.com/gnnlab/gnnlab/interp/internal/typecheck"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
)

// replaySource is the text of r that a rebuild replays (session.go):
// r.src, where a var or const declaration of several names that a later
// cell redefined in part declares those names as _ (var a, c = 1, 2
// after const c = 5 replays as var a, _ = 1, 2). Replayed whole, both
// declarations of c were in one file, and the rebuild failed with "c
// redeclared in this block" (found by running every cell program in one
// session). The values are still evaluated, as they were.
func replaySource(r *declRec) string {
	if r.tok != token.VAR && r.tok != token.CONST {
		return r.src
	}
	const prefix = "package p\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+r.src, parser.SkipObjectResolution)
	if err != nil {
		return r.src
	}
	var dead []*ast.Ident
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, sp := range g.Specs {
			vs, ok := sp.(*ast.ValueSpec)
			if !ok {
				continue
			}
			for _, id := range vs.Names {
				if id.Name != "_" && !slices.Contains(r.names, id.Name) {
					dead = append(dead, id)
				}
			}
		}
	}
	if len(dead) == 0 {
		return r.src
	}
	var b strings.Builder
	last := 0
	for _, id := range dead {
		off := fset.File(id.Pos()).Offset(id.Pos()) - len(prefix)
		b.WriteString(r.src[last:off])
		// Padded, so that columns of what follows stay as written.
		b.WriteString("_" + strings.Repeat(" ", len(id.Name)-1))
		last = off + len(id.Name)
	}
	b.WriteString(r.src[last:])
	return b.String()
}

// replayText returns header and then the declarations of recs that are
// not dead, as a rebuild replays them, leaving out each declaration that
// uses a name in lost (variables that statements defined with a type of
// the session, which cannot move to the new interpreter), then each that
// uses a name of one left out, and so on; it returns the records left
// out. Replayed, var w Writer = p after p := &buf{} failed the rebuild
// with "undefined: p", and every later redefinition of a type with it.
// The declarations of the cell being run (cell) are never left out: such
// a cell fails with an error naming the variable.
func replayText(header string, recs, cell []*declRec, lost []string) (string, []*declRec, error) {
	gone := map[string]bool{}
	for _, n := range lost {
		gone[n] = true
	}
	skip := map[*declRec]bool{}
	var skipped []*declRec
	for {
		type span struct {
			r          *declRec
			start, end int
		}
		var spans []span
		var b strings.Builder
		b.WriteString(header)
		for _, r := range recs {
			if r.dead || skip[r] {
				continue
			}
			start := b.Len()
			b.WriteString(replaySource(r))
			spans = append(spans, span{r, start, b.Len()})
		}
		text := b.String()
		if len(gone) == 0 {
			return text, skipped, nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, cellFile, text, parser.ParseComments)
		if err != nil {
			return text, skipped, nil
		}
		_, undefined := typecheck.Cell(fset, f, &ast.BlockStmt{}, typecheck.Env{})
		more := false
		for _, e := range undefined {
			if !gone[strings.TrimPrefix(e.Msg, "undefined: ")] {
				continue
			}
			off := fset.File(e.Pos).Offset(e.Pos)
			for _, sp := range spans {
				if sp.start > off || off >= sp.end || skip[sp.r] {
					continue
				}
				if slices.Contains(cell, sp.r) {
					p := fset.Position(e.Pos)
					return text, skipped, positioned(nameCompile, []string{cellPos(p.Line, p.Column) + ": " + e.Msg +
						" (a variable that statements set with a type of the session does not survive the rebuild that redefining a type makes: set it again after this cell)"})
				}
				skip[sp.r], more = true, true
				skipped = append(skipped, sp.r)
				for _, n := range sp.r.names {
					gone[n] = true
				}
			}
		}
		if !more {
			return text, skipped, nil
		}
	}
}
