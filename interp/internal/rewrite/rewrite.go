package rewrite

import (
	"go/ast"
	"go/constant"
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

// localAliasesPass is the pass "localaliases".
func localAliasesPass(r *rewriter, n ast.Node) Visit {
	if x, ok := n.(*ast.DeclStmt); ok {
		r.localAliases(r.root, x)
	}
	return Next
}

// ifaceFields is the pass "ifacefields".
func ifaceFields(r *rewriter, n ast.Node) Visit {
	if x, ok := n.(*ast.AssignStmt); ok {
		r.ifaceFieldAssign(x)
	}
	return Next
}

// rangeInts is the pass "rangeint".
func rangeInts(r *rewriter, n ast.Node) Visit {
	x, ok := n.(*ast.RangeStmt)
	if !ok {
		return Next
	}
	t := r.rangeType(x)
	if t == nil {
		return Next
	}
	if u, ok := t.Underlying().(*types.Basic); ok && u.Info()&types.IsInteger != 0 {
		captured := false
		if x.Tok == token.DEFINE {
			captured, _ = r.captured(x.Body, r.loopVars([]ast.Expr{x.Key}))
		}
		r.rangeInt(x, t, captured)
	}
	return Next
}

// constantText returns the text of the constant value of e, converted
// to its type unless that is untyped, when go/types knows it and it can
// be written exactly.
func (r *rewriter) constantText(e ast.Expr) (string, bool) {
	tv, ok := r.info.Types[e]
	if !ok || tv.Value == nil {
		return "", false
	}
	var text string
	switch tv.Value.Kind() {
	case constant.Int:
		text = tv.Value.ExactString()
	case constant.String:
		text = strconv.Quote(constant.StringVal(tv.Value))
	case constant.Float:
		text = floatText(tv.Value)
	case constant.Complex:
		text = "complex(" + floatText(constant.Real(tv.Value)) + ", " + floatText(constant.Imag(tv.Value)) + ")"
	default:
		return "", false
	}
	if b, ok := tv.Type.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return "(" + text + ")", true
	}
	t, ok := typeText(tv.Type, r.names)
	if !ok {
		return "", false
	}
	return t + "(" + text + ")", true
}

// ifaceFieldAssign converts the value assigned to a field of an
// interface type of a compiled struct (r.Value = i * 10, r a *ring.Ring)
// to the field's type: yaegi left the function silently at such an
// assignment of a value of a concrete type computed in the statement.
// So is a composite literal assigned to a field of an interface type of
// any struct (s.Logger = prefixLogger{"> "}): yaegi failed with
// "reflect.Set: value of type interp.valueInterface is not assignable".
func (r *rewriter) ifaceFieldAssign(x *ast.AssignStmt) {
	if x.Tok != token.ASSIGN || len(x.Lhs) != len(x.Rhs) {
		return
	}
	for k, lhs := range x.Lhs {
		sel, ok := ast.Unparen(lhs).(*ast.SelectorExpr)
		if !ok {
			continue
		}
		s, ok := r.info.Selections[sel]
		_, lit := ast.Unparen(x.Rhs[k]).(*ast.CompositeLit)
		if !ok || s.Kind() != types.FieldVal || !(lit || compiledStruct(s.Recv())) {
			continue
		}
		ft := s.Obj().Type()
		vt := r.info.TypeOf(x.Rhs[k])
		if !types.IsInterface(ft) || vt == nil || types.IsInterface(vt) {
			continue
		}
		if b, ok := vt.(*types.Basic); ok && b.Kind() == types.UntypedNil {
			continue
		}
		t, ok := typeText(ft, r.names)
		if !ok {
			continue
		}
		r.ed.Insert(x.Rhs[k].Pos(), "("+t+")(", false)
		r.ed.Insert(x.Rhs[k].End(), ")", false)
	}
}

// localAliases removes the type aliases declared in a function (type
// celsius = float64), which yaegi did not declare ("undefined: celsius"),
// and writes the aliased type at their uses, in parentheses in a
// conversion (ptr(x) with ptr = *T becomes (*T)(x)).
func (r *rewriter) localAliases(root ast.Node, d *ast.DeclStmt) {
	gd, ok := d.Decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.TYPE {
		return
	}
	texts := map[types.Object]string{}
	all := true
	for _, sp := range gd.Specs {
		ts := sp.(*ast.TypeSpec)
		obj, ok := r.info.Defs[ts.Name].(*types.TypeName)
		if !ts.Assign.IsValid() || !ok || !obj.IsAlias() {
			all = false
			continue
		}
		t, ok := typeText(types.Unalias(obj.Type()), r.names)
		if !ok {
			all = false
			continue
		}
		texts[obj] = t
	}
	if len(texts) == 0 {
		return
	}
	called := map[*ast.Ident]bool{}
	ast.Inspect(root, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
				called[id] = true
			}
		case *ast.Ident:
			if t, ok := texts[r.info.Uses[x]]; ok {
				if called[x] {
					t = "(" + t + ")"
				}
				r.ed.Replace(x.Pos(), x.End(), t)
			}
		}
		return true
	})
	// What is removed keeps its line breaks, so that the lines after it
	// keep their numbers.
	remove := func(from, to token.Pos) {
		r.ed.Replace(from, to, strings.Repeat("\n", strings.Count(r.ed.src[r.ed.Off(from):r.ed.Off(to)], "\n")))
	}
	if all {
		remove(d.Pos(), d.End()) // yaegi failed on an empty type ( )
		return
	}
	for _, sp := range gd.Specs {
		if ts := sp.(*ast.TypeSpec); texts[r.info.Defs[ts.Name]] != "" {
			remove(ts.Pos(), ts.End())
		}
	}
}

// compiledStruct reports whether t, or what it points to, is a named
// type of a compiled package.
func compiledStruct(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() != "main"
}

// floatText writes the exact value of a numeric constant as an untyped
// float constant: a fraction (5/2) as 5.0/2.
func floatText(v constant.Value) string {
	num, den, frac := strings.Cut(constant.ToFloat(v).ExactString(), "/")
	if frac {
		return "(" + num + ".0/" + den + ")"
	}
	return num + ".0"
}

// rangeInt turns `for k := range n {` into a three-clause loop, leaving
// the operand's text in place.
func (r *rewriter) rangeInt(x *ast.RangeStmt, t types.Type, captured bool) {
	tname := types.TypeString(types.Default(t), func(*types.Package) string { return "" })
	i, n := r.fresh("i"), r.fresh("n")
	tail := ""
	if key, ok := x.Key.(*ast.Ident); ok && x.Tok == token.DEFINE && key.Name != "_" {
		if captured {
			// A copy per iteration (rewrite_loopvar.go).
			tail = " " + key.Name + " := " + i + ";"
		} else {
			i = key.Name
		}
	} else if x.Key != nil && x.Tok == token.ASSIGN {
		// The loop variable exists already: assign it on each iteration.
		tail = " " + r.ed.Text(x.Key.Pos(), x.Key.End(), false) + " = " + i + ";"
	}
	r.ed.Replace(x.For, x.X.Pos(), "for "+i+", "+n+" := "+tname+"(0), "+tname+"(")
	r.ed.Replace(x.X.End(), x.Body.Lbrace+1, "); "+i+" < "+n+"; "+i+"++ {"+tail)
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
