package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
)

// Cell is a cell split into its declarations and its statements, each a
// Go source of its own that keeps the cell's positions.
type Cell struct {
	Fset     *token.FileSet
	Decls    *ast.File // imports and declarations
	DeclSrc  string    // the source of Decls
	Body     *ast.BlockStmt
	StmtSrc  string // the source of Body
	HasDecls bool
	HasStmts bool
	// The offsets in DeclSrc and StmtSrc of the cell's first byte: both
	// hold the cell's text, the other part blanked, at these offsets.
	DeclBase, StmtBase int
}

// Env is what the rewrites are told about the session.
type Env struct {
	Globals   map[string]reflect.Value
	Undefined []types.Error     // names that go/types and the session do not know
	Names     map[string]string // import path to name, for types written in rewrites
	HasMain   bool              // an earlier cell defined func main
	Seq       *int              // numbers the session's declared functions (goLits)
	// Replay says that the cell is the session's earlier declarations,
	// replayed into a fresh interpreter: plain functions become function
	// variables (funcsToVars), which runDecls does for a cell.
	Replay bool
}

// Part says which part of a cell a pass rewrites.
type Part int

const (
	Decls Part = 1 << iota // the imports and declarations
	Stmts                  // the statements
	Both  = Decls | Stmts
)

// A Pass is one rewrite of the Suite: what Go does that yaegi v0.16.1
// does not (Doc, measured by the differential corpus), and the edits of
// the cell's text that make it behave as Go: Run, a walk of its own over
// the part, or Node, a rewrite of single nodes. Consecutive passes with
// Node (of those that a part runs) share one walk of the part, which
// calls them for each node it visits in Suite order: their edits at one
// position keep that order, and a pass can keep the later ones from a
// node, or the walk from its children (Visit). A new rewrite of single
// nodes is a Pass with Node in its place in the Suite.
type Pass struct {
	Name string
	Doc  string
	Part Part
	Run  func(*state) error
	Node func(r *rewriter, n ast.Node) Visit
}

// Visit is what a pass of single nodes (Pass.Node) says of the walk
// after it has seen a node.
type Visit int

const (
	Next  Visit = iota // the later passes see the node, and the walk its children
	Done               // the later passes skip the node; the walk visits its children
	Prune              // the later passes skip the node, and the walk its children
)

// state is what a pass works on: the rewriter of its part (r) over the
// part's node, and the declarations' rewriter (decl), which the
// statements' passes may read.
type state struct {
	r, decl *rewriter
	node    ast.Node
	cell    *Cell
	env     Env
}

// Suite is the ordered list of passes. Apply runs those of the
// declarations (Decls, Both) in this order over the declarations, then
// those of the statements (Stmts, Both) over the statements: the order
// is this list's. The doc of each pass is what the package doc's
// "# Rewrites" says of it.
var Suite = []Pass{
	{"hoist", "variables of the statements used by the declarations are declared with them (hoist.go)", Stmts,
		func(s *state) error { hoist(s.cell, s.decl, s.r); return nil }, nil},
	{"tupleassigns", "tuple assignments whose right side reads what the left side writes (rewrite_recv.go); first, since later passes edit inside them", Both,
		func(s *state) error { s.r.tupleAssigns(s.node); return nil }, nil},
	{"labels", "labels with the name of a variable are renamed (yaegi looked them up among the variables) (rewrite_labels.go)", Both,
		func(s *state) error { s.r.labelNames(s.node); return nil }, nil},
	{"deferguards", "deferred function literals that panic are guarded, so that recover sees the newest panic (defer.go)", Both,
		func(s *state) error { s.r.recoverIn = s.r.deferGuards(s.node); return nil }, nil},
	{Name: "shifts", Doc: "signed shift counts that are not constant panic when negative (rewrite_shift.go)", Part: Both, Node: shifts},
	{Name: "packagevars", Doc: "variables of compiled packages of basic kinds are used through their address (rewrite_pkgvar.go)", Part: Both, Node: packageVars},
	{Name: "constants", Doc: "constant declarations of several names per line, and implicit repetitions, have iota and the repetition written out (rewrite_const.go)", Part: Both, Node: constants},
	{Name: "main", Doc: "main, once a cell defined it, is the renamed function (rewrite_main.go)", Part: Both, Node: mainRefs},
	{Name: "atomicpointer", Doc: "atomic.Pointer[T] is an interpreted generic type (genericatomic.go)", Part: Both, Node: atomicPointers},
	{Name: "params", Doc: "unnamed parameters are named _ (yaegi stored the receiver in the first) (rewrite_params.go)", Part: Both, Node: params},
	{Name: "selectbreaks", Doc: "break L inside a select, of the loop L labels, becomes a goto after the loop (rewrite_selectbreak.go)", Part: Both, Node: selectBreaksPass},
	{Name: "typeparamconv", Doc: "conversions to a type parameter call a compiled conversion (rewrite_typeparam.go)", Part: Both, Node: typeParamConversions},
	{Name: "iter", Doc: "iter.Seq and Seq2 are written as the function types they are (iter.go)", Part: Both, Node: iterPass},
	{Name: "methodvalues", Doc: "method values bind a copy of their receiver, method expressions become function literals (rewrite_methodvalue.go)", Part: Both, Node: methodValues},
	{Name: "genericmacros", Doc: "calls of the generic functions of slices, maps, iter and sync that take or return iterators or build slices are written out as function literals (genericmacro.go)", Part: Both, Node: genericMacros},
	{Name: "genericstd", Doc: "calls of the common generic functions of slices, maps, cmp and errors call the session's interpreted versions (genericstd.go)", Part: Both, Node: genericStd},
	{Name: "typeargs", Doc: "other calls of generic functions get the type arguments go/types inferred, and their instances are made first (geninstance.go)", Part: Both, Node: typeArgs},
	{Name: "fmtoperands", Doc: "operands of fmt's and log's printing functions of the session's types with fmt's methods become compiled values that call them (rewrite_fmt.go)", Part: Both, Node: fmtArgs},
	{Name: "structtags", Doc: "unexported fields get json:\"-\", struct types with another's fields a tag of their name, empty struct types a hidden field (rewrite_tags.go)", Part: Both, Node: structTags},
	{Name: "embeddedifaces", Doc: "embedded interfaces of struct types are named fields with forwarding methods (rewrite_embed.go)", Part: Both, Node: embeddedIfacesPass},
	{Name: "localaliases", Doc: "type aliases declared in functions are removed and their uses name the aliased type (rewrite_aliases.go)", Part: Both, Node: localAliasesPass},
	{Name: "ifacefields", Doc: "values assigned to interface fields of compiled structs, and composite literals assigned to interface fields, are converted to the field's type (rewrite_ifacefield.go)", Part: Both, Node: ifaceFields},
	{Name: "rangeint", Doc: "range over an integer becomes a three-clause loop (rewrite_rangeint.go)", Part: Both, Node: rangeInts},
	{Name: "rangefunc", Doc: "range over a function calls it with the loop body as the yield function (rewrite_rangefunc.go)", Part: Both, Node: rangeFuncs},
	{Name: "rangeindexed", Doc: "range over a pointer to an array, and with a value over channels, index a copy of the operand (rewrite_loopvar.go)", Part: Both, Node: rangeIndexedPass},
	{Name: "loopvars", Doc: "loop variables that closures capture or whose address is taken are per iteration (rewrite_loopvar.go)", Part: Both, Node: loopVarsPass},
	{Name: "compiledasserts", Doc: "assertions of compiled interface values to struct types of the session are an error (rewrite_iface.go)", Part: Both, Node: compiledAsserts},
	{Name: "minmax", Doc: "min and max call generic helpers, or are their value when constant (rewrite_builtins.go)", Part: Both, Node: minMax},
	{Name: "complexconst", Doc: "complex of constants is written as its value (rewrite_builtins.go)", Part: Both, Node: complexConst},
	{Name: "clear", Doc: "clear calls a compiled helper (rewrite_builtins.go)", Part: Both, Node: clears},
	{Name: "newexpr", Doc: "new(expr) returns the address of a copy of the value (rewrite_builtins.go)", Part: Both, Node: newExprs},
	{Name: "recover", Doc: "recover() gives the panic value, not yaegi's reflect.Value of it (rewrite_builtins.go)", Part: Both, Node: recovers},
	{"nesteddefers", "defer statements in nested functions (rewrite_nesteddefers.go)", Both,
		func(s *state) error { s.r.nestedDefers(s.node); return nil }, nil},
	{"errorconv", "conversions to error of values of the session's types (rewrite_iface.go)", Both,
		func(s *state) error { s.r.errorConv(s.node); return nil }, nil},
	{"recvreturns", "returns of comma-ok receives and assertions (rewrite_recv.go)", Both,
		func(s *state) error { s.r.recvReturns(s.node); return nil }, nil},
	{"builtinreturns", "returns of builtin calls of several results (rewrite_recv.go)", Both,
		func(s *state) error { s.r.builtinReturns(s.node); return nil }, nil},
	{"indexguards", "index expressions outside loops panic with Go's message (rewrite_index.go)", Both,
		func(s *state) error { s.r.indexGuards(s.node); return nil }, nil},
	{"looplitargs", "function literals passed to calls in loops are assigned first (rewrite_loopvar.go); last of the node rewrites: it moves text", Both,
		func(s *state) error { s.r.loopLitArgs(s.node); return nil }, nil},
	{"statements", "top-level definitions that yaegi's global scope mishandles: redefinitions, comma-ok, indexing, nested multi-value definitions (rewrite_stmts.go)", Stmts,
		func(s *state) error { s.r.statements(s.cell.Body, s.r.names); return nil }, nil},
	{"shadows", "variables that shadow others in nested scopes (rewrite_shadow.go)", Stmts,
		func(s *state) error { s.r.shadows(s.cell.Body); return nil }, nil},
	{"globalshadows", "top-level variables that shadow session globals (rewrite_shadow.go)", Stmts,
		func(s *state) error { s.r.globalShadows(s.cell.Body); return nil }, nil},
	{"defers", "top-level defer statements record their calls, run when the cell's statements end (defer.go)", Stmts,
		func(s *state) error { s.r.defers(s.cell.Body, s.r.names); return nil }, nil},
	{"golits", "go statements and function literals become declared functions (rewrite_go.go); last: see there", Both,
		func(s *state) error { s.r.goLits(s.node); return nil }, nil},
	{"selects", "select statements of functions become a switch on the clause that a helper chose over cases of its own (rewrite_select.go); after golits, whose renames of captured variables it moves", Both,
		func(s *state) error { s.r.selects(s.node); return nil }, nil},
	{"funcstovars", "plain functions become function variables, so that a redefinition reaches their callers (replay only; runDecls does it for a cell) (rewrite_funcvars.go)", Decls,
		func(s *state) error {
			if s.env.Replay {
				funcsToVars(s.cell.Decls, s.r.ed)
			}
			return nil
		}, nil},
}

// Output is the rewritten cell: the edits of the declarations and of the
// statements, and what the passes found that the session needs to run
// them.
type Output struct {
	Decl *Rewriter // the declarations'
	Stmt *Rewriter // the statements'; nil for a replay
}

// Apply runs the Suite over the cell with the types go/types found
// (info) and returns the first unsupported construct as an
// *UnsupportedError.
func Apply(c *Cell, info *types.Info, env Env) (*Output, error) {
	return apply(c, info, env, Suite)
}

// apply runs the passes of suite (a Suite or part of one, in tests).
func apply(c *Cell, info *types.Info, env Env, suite []Pass) (*Output, error) {
	rw := &rewriter{info: info, globals: env.Globals, undefined: env.Undefined, ed: NewEditor(c.Fset, c.Decls.Pos(), c.DeclSrc), names: env.Names, hasMain: env.HasMain, seq: env.Seq}
	out := &Output{Decl: rw}
	run := func(part Part, r *rewriter, node ast.Node) error {
		s := &state{r: r, decl: rw, node: node, cell: c, env: env}
		var passes []Pass
		for _, p := range suite {
			if p.Part&part != 0 {
				passes = append(passes, p)
			}
		}
		for k := 0; k < len(passes); k++ {
			if passes[k].Run != nil {
				if err := passes[k].Run(s); err != nil {
					return err
				}
				continue
			}
			end := k + 1
			for end < len(passes) && passes[end].Node != nil {
				end++
			}
			if err := r.walk(node, passes[k:end]); err != nil {
				return err
			}
			k = end - 1
		}
		return nil
	}
	if err := run(Decls, rw, c.Decls); err != nil {
		return nil, err
	}
	if c.Body == nil || !c.Body.Pos().IsValid() {
		return out, nil // a replay has declarations only
	}
	srw := &rewriter{info: info, globals: env.Globals, undefined: env.Undefined, ed: NewEditor(c.Fset, c.Body.Pos(), c.StmtSrc), n: rw.n, names: env.Names, hasMain: env.HasMain, labels: rw.labels, seq: env.Seq}
	out.Stmt = srw
	if err := run(Stmts, srw, c.Body); err != nil {
		return nil, err
	}
	return out, nil
}
