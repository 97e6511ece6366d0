package rewrite

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// constants is the pass "constants", a pass of single nodes (Pass.Node):
// see constRepeat.
func constants(r *rewriter, n ast.Node) Visit {
	if d, ok := n.(*ast.GenDecl); ok && d.Tok == token.CONST {
		r.constRepeat(d)
	}
	return Next
}

// constRepeat fixes constant declarations of several names per line
// (const ( a, b = iota, iota * 10; c, d )), which yaegi gets wrong: it
// fails on the implicit repetition ("constant definition loop") and
// counts iota per name, not per line. In such a line, iota is written as
// its value and a repeated expression list is written out. yaegi also
// failed on implicit repetitions in lines of one name (Warn = Info * 10;
// Error, and MB after KB Size = 1 << (10 * iota)), which are written out
// too, iota as its value.
func (r *rewriter) constRepeat(d *ast.GenDecl) {
	var last *ast.ValueSpec
	for k, sp := range d.Specs {
		vs := sp.(*ast.ValueSpec)
		if len(vs.Values) > 0 {
			last = vs
		}
		if last == nil || r.floatShift(vs, last) || (len(vs.Names) < 2 && len(vs.Values) > 0) {
			continue
		}
		if len(vs.Values) > 0 {
			for _, e := range vs.Values {
				ast.Inspect(e, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok && r.isIota(id) {
						r.ed.Replace(id.Pos(), id.End(), strconv.Itoa(k))
					}
					return true
				})
			}
			continue
		}
		if vs.Type != nil {
			continue
		}
		text := ""
		if last.Type != nil {
			text = " " + r.ed.src[r.ed.Off(last.Type.Pos()):r.ed.Off(last.Type.End())]
		}
		from, to := r.ed.Off(last.Values[0].Pos()), r.ed.Off(last.Values[len(last.Values)-1].End())
		var iotas []int
		for _, e := range last.Values {
			ast.Inspect(e, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && r.isIota(id) {
					iotas = append(iotas, r.ed.Off(id.Pos()))
				}
				return true
			})
		}
		var b strings.Builder
		at := from
		for _, o := range iotas {
			b.WriteString(r.ed.src[at:o] + strconv.Itoa(k))
			at = o + len("iota")
		}
		b.WriteString(r.ed.src[at:to])
		r.ed.Insert(vs.Names[len(vs.Names)-1].End(), text+" = "+b.String(), false)
	}
}
