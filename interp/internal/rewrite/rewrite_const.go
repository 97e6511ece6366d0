package rewrite

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
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

// floatShift writes the values of the constants of vs, whose values are
// those of last, when they have a floating-point type and the values
// shift (KB Size = 1 << (10 * iota), with Size a float64): yaegi failed
// on them ("constant definition loop"). It reports whether it did.
func (r *rewriter) floatShift(vs, last *ast.ValueSpec) bool {
	shifts := false
	for _, e := range last.Values {
		ast.Inspect(e, func(n ast.Node) bool {
			if b, ok := n.(*ast.BinaryExpr); ok && (b.Op == token.SHL || b.Op == token.SHR) {
				shifts = true
			}
			return !shifts
		})
	}
	if !shifts {
		return false
	}
	vals := make([]string, len(vs.Names))
	typ := ""
	for k, name := range vs.Names {
		c, ok := r.info.Defs[name].(*types.Const)
		if !ok {
			return false
		}
		b, ok := c.Type().Underlying().(*types.Basic)
		if !ok || b.Info()&types.IsFloat == 0 || b.Info()&types.IsUntyped != 0 || c.Val().Kind() == constant.Unknown {
			return false
		}
		num, den, frac := strings.Cut(constant.ToFloat(c.Val()).ExactString(), "/")
		vals[k] = num + ".0"
		if frac {
			vals[k] += "/" + den
		}
		t, ok := typeText(c.Type(), r.names)
		if !ok || (typ != "" && t != typ) {
			return false
		}
		typ = t
	}
	if len(vs.Values) == 0 {
		r.ed.Insert(vs.Names[len(vs.Names)-1].End(), " "+typ+" = "+strings.Join(vals, ", "), false)
		return true
	}
	if len(vs.Values) != len(vs.Names) {
		return false
	}
	for k, e := range vs.Values {
		r.ed.Replace(e.Pos(), e.End(), typ+"("+vals[k]+")")
	}
	return true
}

// isIota reports whether id is the predeclared iota.
func (r *rewriter) isIota(id *ast.Ident) bool {
	if id.Name != "iota" {
		return false
	}
	c, ok := r.info.Uses[id].(*types.Const)
	return ok && c.Pkg() == nil
}
