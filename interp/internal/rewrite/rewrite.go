package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/helpers"
	"github.com/gnnlab/gnnlab/interp/internal/symtypes"
)

// Names of the helpers that rewritten cells call; see helperSrc.
const (
	helperPrefix = "__gnnlab_"
	helperMin    = helperPrefix + "min"
	helperMax    = helperPrefix + "max"
	helperMain   = helperPrefix + "main"
	helperNew    = helperPrefix + "new"
	helperErr    = helperPrefix + "err"
)

// helperSrc is compiled into every interpreter
// (internal/helpers/session/session.go).
var helperSrc = helpers.Session()

// unsupportedError is a construct found before running that yaegi cannot
// handle.
type unsupportedError struct {
	pos token.Pos
	msg string
}

func (e *unsupportedError) Error() string { return e.msg }

// importer gives go/types the compiled packages (symbolTypes); a package
// the interpreter lacks is empty, so that its names are not reported as
// undefined here (yaegi reports the import).
type importer struct{}

func (importer) Import(path string) (*types.Package, error) {
	if p := genericTypes(path); p != nil {
		return p, nil // genericstd.go
	}
	if path == "iter" {
		if p := iterTypes(); p != nil {
			return p, nil // iter.go
		}
	}
	if p, err := symtypes.Import(path); err == nil {
		return p, nil
	}
	name := path[strings.LastIndex(path, "/")+1:]
	p := types.NewPackage(path, name)
	p.MarkComplete()
	return p, nil
}

// rewriter finds the constructs that stand in for Go features yaegi
// lacks (see the package doc) and records their rewrites as text edits.
type rewriter struct {
	info      *types.Info
	undefined []types.Error // from typecheck
	globals   map[string]reflect.Value
	ed        *Editor
	n         int
	unknown   token.Pos           // a range statement whose operand type is unknown
	names     map[string]string   // import path to name, for types written in rewrites
	hasMain   bool                // an earlier cell defined func main
	labels    map[ast.Stmt]string // labelled statements, by statement
	hoistDecl string              // declarations of hoisted variables (hoist.go)
	hoisted   map[ast.Stmt]bool   // definitions made assignments (hoist.go)
	generic   map[string]bool     // packages whose helpers calls use (genericstd.go)
	instances []Instance          // generic instances the calls use (geninstance.go)
	loops     []ast.Stmt          // for and range statements (deferredLit)
	seq       *int                // numbers the session's declared functions (goLits)
	goFuncs   []goFunc            // functions declared for go statements (rewrite_go.go)
	// underlying maps the underlying types of the session's named
	// non-struct types with methods to their names (rewrite_typeswitch.go).
	underlying map[types.Type]string
	funcs      []ast.Node              // function declarations and literals, in source order
	forwards   []string                // methods declared for embedded interfaces (rewrite_embed.go)
	deferArgs  []deferArg              // deferred literals given loop variables (deferredLit)
	inOrder    map[*ast.ValueSpec]bool // var specs initialised (false) or declared (true) among the statements (hoist.go)
	inOrderEnd token.Pos               // in the statements, the end of the last of those (hoist.go)
	// recoverIn are the deferPanic variables that recover() calls in
	// guarded deferred literals read (deferGuards, defer.go).
	recoverIn map[*ast.CallExpr]string
	// The walk of the passes of single nodes (walk): its root, the
	// first unsupported construct they found, and whether it has
	// recorded what the walk records.
	root     ast.Node
	walkErr  error
	recorded bool
	// called are the selectors called at once (methodValues).
	called map[*ast.SelectorExpr]bool
	// genericCalls says what the passes of generic calls did with a
	// call (genericMacros).
	genericCalls map[*ast.CallExpr]int
}

func (r *rewriter) fresh(base string) string {
	r.n++
	return helperPrefix + base + strconv.Itoa(r.n)
}

// isBuiltin reports whether id refers to the predeclared function name.
func (r *rewriter) isBuiltin(id *ast.Ident, name string) bool {
	if id.Name != name {
		return false
	}
	if obj, ok := r.info.Uses[id]; ok {
		_, b := obj.(*types.Builtin)
		return b
	}
	_, shadowed := r.globals[name]
	return !shadowed
}

// walk calls passes, passes of single nodes (Pass.Node), on each node
// of root in their order, and returns the first unsupported construct
// that they found. Before the passes see a node, the first walk of the
// rewriter records what later passes read of it: labels, function
// declarations and literals, loops, and the first range statement whose
// operand has a type go/types does not know (Unknown).
func (r *rewriter) walk(root ast.Node, passes []Pass) error {
	record := !r.recorded
	r.root, r.walkErr, r.recorded = root, nil, true
	if r.labels == nil {
		r.labels = map[ast.Stmt]string{}
	}
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			return true
		}
		if record {
			r.record(n)
		}
		for _, p := range passes {
			switch p.Node(r, n) {
			case Done:
				return true
			case Prune:
				return false
			}
		}
		return true
	})
	return r.walkErr
}

// record records n for later passes (walk).
func (r *rewriter) record(n ast.Node) {
	switch x := n.(type) {
	case *ast.LabeledStmt:
		r.labels[x.Stmt] = x.Label.Name
	case *ast.FuncDecl:
		r.funcs = append(r.funcs, x)
	case *ast.FuncLit:
		r.funcs = append(r.funcs, x)
	case *ast.ForStmt:
		r.loops = append(r.loops, x)
	case *ast.RangeStmt:
		r.loops = append(r.loops, x)
		if x.X != nil && r.rangeType(x) == nil && r.unknown == token.NoPos && x.Value == nil {
			r.unknown = x.For
		}
	}
}

// fail records e, an unsupported construct that a pass of single nodes
// found, unless the walk found one before.
func (r *rewriter) fail(e error) {
	if r.walkErr == nil {
		r.walkErr = e
	}
}

// rangeType is the type of the operand of a range statement, nil when
// go/types does not know it.
func (r *rewriter) rangeType(x *ast.RangeStmt) types.Type {
	if x.X == nil {
		return nil
	}
	tv, ok := r.info.Types[x.X]
	if !ok || tv.Type == nil || tv.Type == types.Typ[types.Invalid] {
		return nil
	}
	return tv.Type
}

// rangeOver returns n as a range statement and the type of its operand;
// t is nil when n is not a range statement or rangeType is nil.
func (r *rewriter) rangeOver(n ast.Node) (x *ast.RangeStmt, t types.Type) {
	x, ok := n.(*ast.RangeStmt)
	if !ok {
		return nil, nil
	}
	return x, r.rangeType(x)
}

// stmtList returns the statements of a block or of a case or comm
// clause, nil for another node.
func stmtList(n ast.Node) []ast.Stmt {
	switch n := n.(type) {
	case *ast.BlockStmt:
		return n.List
	case *ast.CaseClause:
		return n.Body
	case *ast.CommClause:
		return n.Body
	}
	return nil
}

// typeText writes t as source for a cell, its packages named as the
// session imported them (names: import path to name); false when t
// cannot be written there (an invalid type, a package not imported).
func typeText(t types.Type, names map[string]string) (string, bool) {
	ok := true
	s := types.TypeString(t, func(p *types.Package) string {
		if p.Path() == "main" {
			return ""
		}
		n, found := names[p.Path()]
		ok = ok && found
		return n
	})
	return s, ok && validType(t)
}

func plainFunc(fd *ast.FuncDecl) bool {
	return fd.Recv == nil && fd.Body != nil && fd.Name.Name != "init" && fd.Name.Name != "_" &&
		(fd.Type.TypeParams == nil || len(fd.Type.TypeParams.List) == 0)
}

// validType reports whether t can be written in a cell: no invalid parts,
// no types of packages the type checker did not see.
func validType(t types.Type) bool {
	s := types.TypeString(t, nil)
	return !strings.Contains(s, "invalid type") && !strings.Contains(s, "untyped")
}

// refers reports whether n mentions one of names.
func refers(n ast.Node, names map[string]bool) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok && names[id.Name] {
			found = true
		}
		return !found
	})
	return found
}
