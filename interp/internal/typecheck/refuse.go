package typecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
	"github.com/gnnlab/gnnlab/interp/internal/symtypes"
)

// Refused returns, of the errors go/types found in a cell (errs, those
// that Env.Errors was told), the ones that Go's compiler reports too and
// that the session's view of itself cannot have caused, sorted by
// position and in the compiler's words where they differ from go/types'
// (gcWords): the session refuses the cell with them before anything
// runs. yaegi ran some such cells without an error (clear(0), a, b := 1,
// 2, 3, a missing return, break outside a loop, var x int = nil) and
// failed on others with its own words.
//
// The checker sees the session only in part: a global of an earlier cell
// has the type its reflect value shows, which for a named non-struct type
// of the session is its underlying type (exact, GlobalsExact's answer,
// says the session has none, nor a module's package, so that the globals'
// types are right; yaegi's constants of a failed cell are constant.Value
// to the checker, never right); a name that a statement of the cell
// defines is undefined in the cell's functions, which the session allows;
// a compiled package's types come from reflect, which lists no unexported
// method of a concrete type; and the compiled tier may build a declaration
// of an earlier cell again with the cell (a method declared for a compiled
// type). So an error counts only when the smallest statement, declaration
// spec or function declaration around it (less the blocks in it that do
// not hold the error) uses no global whose type may be wrong, nor a
// variable that a statement using one defined, nor a compiled cell's
// declaration, names nothing that go/types could not resolve, and is not
// about a missing unexported method.
func Refused(info *types.Info, errs []types.Error, exact bool, nodes ...ast.Node) []types.Error {
	if info == nil || len(errs) == 0 {
		return nil
	}
	named := knownNames(info)
	tainted := taint(info, nodes, named, exact)
	var out []types.Error
	kept := false // the last error that is not a continuation was kept
	for _, te := range errs {
		if cont, ok := strings.CutPrefix(te.Msg, "\t"); ok {
			// A continuation of the error before it ("\tprevious case"):
			// the compiler's next line, "\tFILE:LINE:COL: previous case".
			if kept {
				out[len(out)-1].Msg += "\n\t" + te.Fset.Position(te.Pos).String() + ": " + cont
			}
			continue
		}
		kept = false
		if strings.HasPrefix(te.Msg, "undefined: ") || unexportedMethod.MatchString(te.Msg) {
			continue
		}
		unit := around(te.Pos, nodes)
		if unit == nil || !clean(unit, te.Pos, info, tainted, named) {
			continue
		}
		te.Pos, te.Msg = gcWords(te, unit, nodes)
		out = append(out, te)
		kept = true
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
	return out
}

// unexportedMethod matches go/types' words for a type that lacks a
// method whose name is unexported: a compiled type has such methods
// (ast.Ident's exprNode) that its reflect type does not list.
var unexportedMethod = regexp.MustCompile(`(missing|wrong type for) method [\p{Ll}_]`)

// gcWords returns te's position and message as Go's compiler reports
// them where go/types differs: the compiler's own pass checks branch
// statements, with words of its own, and it places a few errors at the
// start of their statement or call.
func gcWords(te types.Error, unit ast.Node, nodes []ast.Node) (token.Pos, string) {
	switch te.Msg {
	case "break not in for, switch, or select statement":
		return te.Pos, "break is not in a loop, switch, or select"
	case "continue not in for statement":
		return te.Pos, "continue is not in a loop"
	}
	if name, ok := strings.CutPrefix(te.Msg, "label "); ok {
		if name, ok := strings.CutSuffix(name, " declared and not used"); ok {
			return te.Pos, "label " + name + " defined and not used"
		}
		if name, ok = strings.CutSuffix(name, " not declared"); ok {
			if br, ok := unit.(*ast.BranchStmt); ok && br.Tok != token.GOTO {
				return te.Pos, br.Tok.String() + " label not defined: " + name
			}
			return te.Pos, "label " + name + " not defined"
		}
	}
	for _, tok := range []string{"break", "continue"} {
		// go/types says so for a label that is not declared too.
		if name, ok := strings.CutPrefix(te.Msg, "invalid "+tok+" label "); ok && !declaresLabel(nodes, name) {
			return te.Pos, tok + " label not defined: " + name
		}
	}
	if strings.HasPrefix(te.Msg, "goto ") && strings.Contains(te.Msg, " jumps over variable declaration at line ") {
		if msg := jumpedOver(te, unit, nodes); msg != "" {
			return te.Pos, msg
		}
	}
	if s, ok := unit.(*ast.SendStmt); ok && te.Pos == s.Arrow {
		return s.Pos(), te.Msg
	}
	if strings.HasPrefix(te.Msg, "not enough arguments in call to ") {
		pos := te.Pos
		ast.Inspect(unit, func(x ast.Node) bool {
			if call, ok := x.(*ast.CallExpr); ok && call.Rparen == te.Pos && len(call.Args) == 0 {
				pos = call.Pos()
			}
			return pos == te.Pos
		})
		return pos, te.Msg
	}
	return te.Pos, te.Msg
}

// declaresLabel reports whether a statement of nodes is labelled name.
func declaresLabel(nodes []ast.Node, name string) bool {
	found := false
	for _, n := range nodes {
		ast.Inspect(n, func(x ast.Node) bool {
			if l, ok := x.(*ast.LabeledStmt); ok && l.Label.Name == name {
				found = true
			}
			return !found
		})
	}
	return found
}

// jumpedOver returns the compiler's words for a goto (te's, in unit)
// that jumps forward over a variable declaration in its block: "goto L
// jumps over declaration of x at FILE:LINE:COL", naming the last such
// declaration before the label, at the first name of a var declaration
// or the := of a short one; or "".
func jumpedOver(te types.Error, unit ast.Node, nodes []ast.Node) string {
	g, ok := unit.(*ast.BranchStmt)
	if !ok || g.Label == nil {
		return ""
	}
	var list []ast.Stmt
	for _, n := range nodes {
		ast.Inspect(n, func(x ast.Node) bool {
			var l []ast.Stmt
			switch x := x.(type) {
			case *ast.BlockStmt:
				l = x.List
			case *ast.CaseClause:
				l = x.Body
			case *ast.CommClause:
				l = x.Body
			}
			if slices.Contains(l, ast.Stmt(g)) {
				list = l
			}
			return list == nil
		})
	}
	var name string
	var at token.Pos
	for _, st := range list[slices.Index(list, ast.Stmt(g))+1:] {
		switch st := st.(type) {
		case *ast.LabeledStmt:
			if st.Label.Name == g.Label.Name && name != "" {
				return te.Msg[:strings.Index(te.Msg, " jumps ")] + " jumps over declaration of " + name + " at " + te.Fset.Position(at).String()
			}
		case *ast.DeclStmt:
			if gd, ok := st.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR && len(gd.Specs) > 0 {
				vs := gd.Specs[len(gd.Specs)-1].(*ast.ValueSpec)
				name, at = vs.Names[0].Name, vs.Names[0].Pos()
			}
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				var names []string
				for _, e := range st.Lhs {
					names = append(names, types.ExprString(e))
				}
				name, at = strings.Join(names, ", "), st.TokPos
			}
		}
	}
	return ""
}

// around returns the smallest statement (not a block or a case clause:
// their statements are checked one by one), spec or function
// declaration of nodes that holds pos, or nil.
func around(pos token.Pos, nodes []ast.Node) ast.Node {
	var best ast.Node
	for _, n := range nodes {
		ast.Inspect(n, func(x ast.Node) bool {
			if x == nil || pos < x.Pos() || pos >= x.End() {
				return false
			}
			switch x.(type) {
			case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
			case ast.Stmt, ast.Spec, *ast.FuncDecl:
				best = x
			}
			return true
		})
	}
	return best
}

// clean reports whether unit, less its blocks that do not hold pos, uses
// no tainted object and no name that go/types does not know (not in
// named, the names it knows). The names that go/types leaves unresolved
// in a statement it reports on are not counted: a selector's name, a
// struct literal's field, a label, a name it knows (int in x.(int) of an
// int x). Nor may unit use a declaration of an earlier cell that the
// compiled tier built into a plugin (ofPlugin): the tier may build it
// again with the cell, with the methods that the cell declares.
func clean(unit ast.Node, pos token.Pos, info *types.Info, tainted map[types.Object]bool, named map[string]bool) bool {
	skip := map[*ast.Ident]bool{}
	ok := true
	ast.Inspect(unit, func(x ast.Node) bool {
		if !ok {
			return false
		}
		switch x := x.(type) {
		case *ast.BlockStmt:
			// A body's statements do not change the types outside it.
			return x == unit || (x.Pos() <= pos && pos < x.End())
		case *ast.SelectorExpr:
			skip[x.Sel] = true
		case *ast.BranchStmt:
			if x.Label != nil {
				skip[x.Label] = true
			}
		case *ast.LabeledStmt:
			skip[x.Label] = true
		case *ast.CompositeLit:
			if tv, found := info.Types[x]; found && tv.Type != nil {
				if _, isStruct := tv.Type.Underlying().(*types.Struct); isStruct {
					for _, e := range x.Elts {
						if kv, isKV := e.(*ast.KeyValueExpr); isKV {
							if id, isID := kv.Key.(*ast.Ident); isID {
								skip[id] = true
							}
						}
					}
				}
			}
		case *ast.Ident:
			if x.Name == "_" {
				return true
			}
			if obj, used := info.Uses[x]; used {
				// A declaration of the session that the compiled tier
				// built into a plugin: the tier may build it again with
				// the cell (a method of a type of an earlier cell).
				ok = !tainted[obj] && !ofPlugin(obj)
			} else if _, def := info.Defs[x]; !def && !named[x.Name] && !skip[x] {
				ok = false // a name go/types does not know (undefined)
			}
		}
		return ok
	})
	return ok
}

// taint returns the objects whose type the checker may have wrong: the
// session's globals that Cell declared from their reflect values (no
// position; when exact, only yaegi's constants among them), and the
// variables of the cell that a statement using a tainted object defines.
func taint(info *types.Info, nodes []ast.Node, named map[string]bool, exact bool) map[types.Object]bool {
	tainted := map[types.Object]bool{}
	for _, obj := range info.Uses {
		v, ok := obj.(*types.Var)
		if !ok || v.Pos().IsValid() || v.Pkg() == nil || v.Pkg().Path() != "main" || v.Parent() != v.Pkg().Scope() {
			continue
		}
		if !exact || isConstantValue(v.Type()) {
			tainted[obj] = true
		}
	}
	if len(tainted) == 0 {
		return tainted
	}
	for changed := true; changed; {
		changed = false
		for id, obj := range info.Defs {
			if obj == nil || tainted[obj] {
				continue
			}
			if _, ok := obj.(*types.Var); !ok {
				continue
			}
			if unit := around(id.Pos(), nodes); unit != nil && !clean(unit, id.Pos(), info, tainted, named) {
				tainted[obj] = true
				changed = true
			}
		}
	}
	return tainted
}

// knownNames returns the names go/types knows in the cell: those it
// declared (the cell's and the earlier cells') and the universe's.
func knownNames(info *types.Info) map[string]bool {
	named := map[string]bool{}
	for id := range info.Defs {
		named[id.Name] = true
	}
	for _, obj := range info.Uses {
		named[obj.Name()] = true
	}
	for _, n := range types.Universe.Names() {
		named[n] = true
	}
	return named
}

// isConstantValue reports whether t is go/constant's Value, or a type of
// that package: the reflect type of yaegi's constants among its globals.
func isConstantValue(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "go/constant"
}

// GlobalsExact reports whether the types that Cell gives the session's
// globals (from their reflect values) are their Go types: no live
// declaration of an earlier cell is of a named type that is not a struct
// (yaegi gives a variable of type Suit int the reflect type int, which
// lacks Suit's methods and is not Suit; a struct type's variables are
// not given to the checker at all), and every import is of a package
// whose types the checker has (a module's package is interpreted from
// source, its named types too).
func GlobalsExact(env Env) bool {
	for rec := range records(env.Earlier) {
		if rec.Dead || rec.Tok != token.TYPE {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+rec.Text, parser.SkipObjectResolution)
		if err != nil {
			return false
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				return false
			}
			for _, sp := range gd.Specs {
				ts, ok := sp.(*ast.TypeSpec)
				if !ok {
					return false
				}
				if _, isStruct := ts.Type.(*ast.StructType); !isStruct && !ts.Assign.IsValid() {
					return false
				}
			}
		}
	}
	for _, im := range env.Imports {
		pkg, err := rewrite.Importer.Import(im.Path)
		if err != nil || pkg == nil || pkg.Scope().Len() == 0 {
			return false
		}
	}
	return true
}

// ofPlugin reports whether obj belongs to a compiled cell (a plugin): it
// is a plugin's package or of one, or names or has a type declared there
// (the session declares a compiled type as an alias of the plugin's:
// type byLen = c2.byLen).
func ofPlugin(obj types.Object) bool {
	if pn, ok := obj.(*types.PkgName); ok {
		return symtypes.IsPlugin(pn.Imported().Path())
	}
	if obj.Pkg() != nil && symtypes.IsPlugin(obj.Pkg().Path()) {
		return true
	}
	t := types.Unalias(obj.Type())
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && symtypes.IsPlugin(n.Obj().Pkg().Path())
}
