package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/gnnlab/gnnlab/interp/internal/rt"
)

// Shift counts.
//
// A shift count of a signed type that is not constant (x << n) becomes
// __gnnlab_rt.ShiftCount(int64(n)), which panics with Go's runtime error
// when it is negative: yaegi shifted by it (1 << -1 gave 0). The pass
// "shifts" is a pass of single nodes (Pass.Node).

// shifts is the pass "shifts".
func shifts(r *rewriter, n ast.Node) Visit {
	switch x := n.(type) {
	case *ast.AssignStmt:
		if (x.Tok == token.SHL_ASSIGN || x.Tok == token.SHR_ASSIGN) && len(x.Rhs) == 1 {
			r.shiftCount(x.Rhs[0])
		}
	case *ast.BinaryExpr:
		if x.Op == token.SHL || x.Op == token.SHR {
			r.shiftCount(x.Y)
		}
	}
	return Next
}

// shiftCount makes a shift count of a signed type that is not constant
// (x << n) panic when it is negative, as Go does: yaegi shifted by it
// (1 << -1 gave 0). The count becomes __gnnlab_rt.ShiftCount(int64(n)),
// an unsigned count.
func (r *rewriter) shiftCount(n ast.Expr) {
	tv, ok := r.info.Types[n]
	if !ok || tv.Value != nil || tv.Type == nil {
		return
	}
	b, ok := tv.Type.Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsInteger == 0 || b.Info()&types.IsUnsigned != 0 || b.Info()&types.IsUntyped != 0 {
		return
	}
	r.ed.Insert(n.Pos(), rt.ShiftCount+"(int64(", false)
	r.ed.Insert(n.End(), "))", false)
}
