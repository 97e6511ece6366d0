package rewrite

import (
	"go/ast"
	"go/types"
	"reflect"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/rt"
	"github.com/gnnlab/gnnlab/interp/symbols"
)

// Named non-struct types in fmt.
//
// yaegi gives a cell's named type of a non-struct kind (type ID int, type
// Scores []int) its underlying reflect type, so %T printed int, not
// main.ID. In a call of a fmt function with a constant format holding %T
// or %#v, an argument whose type holds such a type becomes
// __gnnlab_rt.Named("main.ID", x), which the fmt wrappers print as Go
// does (namedValue, internal/rt/fmtnames.go).

// fmtFuncs are the fmt functions with a format, by the format's index.
var fmtFuncs = map[string]int{"Printf": 0, "Sprintf": 0, "Errorf": 0, "Fprintf": 1, "Appendf": 1}

// printFuncs are the fmt functions that print their arguments, by the
// index of the first argument printed.
var printFuncs = map[string]int{"Print": 0, "Println": 0, "Sprint": 0, "Sprintln": 0, "Fprint": 1, "Fprintln": 1, "Printf": 1, "Sprintf": 1, "Errorf": 1, "Fprintf": 2, "Appendf": 2, "Append": 1, "Appendln": 1}

// fmtCall returns the name of the fmt function that call calls, or "";
// for a printing function of log, the fmt function whose arguments it
// takes (internal/rt/logprint.go).
func (r *rewriter) fmtCall(call *ast.CallExpr) string {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if s, ok := r.info.Selections[sel]; ok && s.Kind() == types.MethodVal && isLogLogger(s.Recv()) {
		return logPrintNames[sel.Sel.Name]
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	pn, ok := r.info.Uses[pkg].(*types.PkgName)
	switch {
	case !ok:
		return ""
	case pn.Imported().Path() == "log":
		return logPrintNames[sel.Sel.Name]
	case pn.Imported().Path() != "fmt":
		return ""
	}
	return sel.Sel.Name
}

// fmtOperands records the rewrites of the arguments of a printing call
// whose static types hold a type of the session with methods that fmt
// looks for (internal/rt/fmtoperand.go): the argument x of type T becomes
// func(v T) any { return CONV }(x), CONV a call of a compiled helper
// built from T (fmtConv). It marks them in done.
func (r *rewriter) fmtOperands(call *ast.CallExpr, done map[ast.Expr]bool) {
	name := r.fmtCall(call)
	k, ok := printFuncs[name]
	if !ok || call.Ellipsis.IsValid() {
		return
	}
	if len(call.Args) == 1 && k == 0 {
		r.tupleOperands(call.Args[0], done)
	}
	for i, a := range call.Args {
		tv := r.info.Types[a]
		if i < k || tv.Type == nil || tv.IsNil() || tv.IsType() {
			continue
		}
		if name == "Errorf" && types.NewMethodSet(tv.Type).Lookup(nil, "Error") != nil {
			continue // %w needs the error
		}
		fn, ok := r.fmtConv(tv.Type, 0)
		if !ok {
			continue
		}
		done[a] = true
		r.ed.Insert(a.Pos(), fn+"(", false)
		r.ed.Insert(a.End(), ")", false)
	}
}

// tupleOperands records the rewrite of a, the only argument of a
// printing call, when it is a call with several results one of which
// fmtConv converts: f() becomes func(r0 T0, r1 T1) []any { return
// []any{CONV(r0), r1} }(f())..., as yaegi lost the methods of the
// results (two() printed 1 <nil>, not H <nil>).
func (r *rewriter) tupleOperands(a ast.Expr, done map[ast.Expr]bool) {
	tup, ok := r.info.Types[a].Type.(*types.Tuple)
	if !ok || tup.Len() < 2 {
		return
	}
	var params, vals []string
	conv := false
	for j := 0; j < tup.Len(); j++ {
		t := tup.At(j).Type()
		tt, ok := typeText(t, r.names)
		if !ok {
			return
		}
		p := helperPrefix + "r" + strconv.Itoa(j)
		params = append(params, p+" "+tt)
		if fc, ok := r.fmtConv(t, 0); ok {
			p, conv = fc+"("+p+")", true
		}
		vals = append(vals, p)
	}
	if !conv {
		return
	}
	done[a] = true
	r.ed.Insert(a.Pos(), "func("+strings.Join(params, ", ")+") []any { return []any{"+strings.Join(vals, ", ")+"} }(", false)
	r.ed.Insert(a.End(), ")...", false)
}

// fmtConv returns the text of a function literal of one parameter of
// type t that returns the operand for fmt of its argument, when t is a
// type of the session, or a pointer to one, whose method set or whose
// pointer's has a method that fmt looks for (__gnnlab_rt.Operand, with a
// closure for each of Format, GoString, Error and String in t's method
// set), or a slice, array, map or struct (in an exported field, whose
// methods fmt sees), or a pointer to one of these, that holds such a type
// (__gnnlab_rt.List, __gnnlab_rt.Map, __gnnlab_rt.Struct,
// __gnnlab_rt.Ptr); else false.
func (r *rewriter) fmtConv(t types.Type, depth int) (string, bool) {
	if depth > 4 || hasTypeParam(t) {
		return "", false
	}
	d := strconv.Itoa(depth)
	v, i, k, e := helperPrefix+"f"+d, helperPrefix+"i"+d, helperPrefix+"k"+d, helperPrefix+"e"+d
	name := strconv.Quote(reflectTypeString(t, 0))
	var body string
	if ms, ok := fmtMethodSet(t); ok {
		args := []string{name, v}
		for _, m := range fmtMethodNames {
			switch {
			case !ms[m]:
				args = append(args, "nil")
			case m == "Format":
				args = append(args, "func(s "+rt.State+", c rune) { "+v+".Format(s, c) }")
			default:
				args = append(args, "func() string { return "+v+"."+m+"() }")
			}
		}
		body = rt.Operand + "(" + strings.Join(args, ", ") + ")"
	} else {
		switch u := t.Underlying().(type) {
		case *types.Slice, *types.Array:
			elem, isNil := types.Type(nil), "false"
			if s, ok := u.(*types.Slice); ok {
				elem, isNil = s.Elem(), v+" == nil"
			} else {
				elem = u.(*types.Array).Elem()
			}
			ec, ok := r.fmtConv(elem, depth+1)
			if !ok {
				return "", false
			}
			body = rt.List + "(" + name + ", " + isNil + ", len(" + v + "), func(" + i + " int) any { return " + ec + "(" + v + "[" + i + "]) })"
		case *types.Map:
			kc, kok := r.fmtConv(u.Key(), depth+1)
			ec, eok := r.fmtConv(u.Elem(), depth+1)
			if !kok && !eok {
				return "", false
			}
			key, elem := ifaceElem(u.Key(), k), ifaceElem(u.Elem(), e)
			if kok {
				key = kc + "(" + k + ")"
			}
			if eok {
				elem = ec + "(" + e + ")"
			}
			body = rt.Map + "(" + name + ", " + v + " == nil, func(yield func(raw, key, value any)) { for " + k + ", " + e + " := range " + v + " { yield(" + k + ", " + key + ", " + elem + ") } })"
		case *types.Pointer:
			switch u.Elem().Underlying().(type) {
			case *types.Struct, *types.Array, *types.Slice, *types.Map:
			default:
				return "", false
			}
			ec, ok := r.fmtConv(u.Elem(), depth+1)
			if !ok {
				return "", false
			}
			body = rt.Ptr + "(" + name + ", " + v + ", " + v + " == nil, func() any { return " + ec + "(*" + v + ") })"
		case *types.Struct:
			var names, vals []string
			conv := false
			for j := 0; j < u.NumFields(); j++ {
				f := u.Field(j)
				names = append(names, f.Name())
				val := v + "." + f.Name()
				if f.Name() == "_" {
					val = "nil"
				} else if fc, ok := r.fmtConv(f.Type(), depth+1); ok && f.Exported() {
					val, conv = fc+"("+val+")", true
				} else if ok {
					// fmt calls no method of an unexported field.
					val = rt.Operand + "(" + strconv.Quote(reflectTypeString(f.Type(), 0)) + ", " + val + ", nil, nil, nil, nil)"
				} else {
					val = ifaceElem(f.Type(), val)
				}
				vals = append(vals, val)
			}
			if !conv {
				return "", false
			}
			body = rt.Struct + "(" + name + ", " + v + ", " + strconv.Quote(strings.Join(names, ",")) + ", []any{" + strings.Join(vals, ", ") + "})"
		default:
			return "", false
		}
	}
	tt, ok := typeText(t, r.names)
	if !ok {
		return "", false
	}
	return "func(" + v + " " + tt + ") any { return " + body + " }", true
}

// ifaceElem is the text of x, an element of type t of a value that
// fmtConv rewrites: for an interface type, a call of __gnnlab_rt.Iface,
// which gives a nil x its type for %#v (interface {}(nil)).
func ifaceElem(t types.Type, x string) string {
	if _, ok := t.Underlying().(*types.Interface); !ok {
		return x
	}
	return rt.Iface + "(" + strconv.Quote(reflectTypeString(t, 0)) + ", " + x + ")"
}

// reflectTypeString is t as Go's reflect (and so %T) writes it, the
// session's package named main: struct { x int }, interface {}.
func reflectTypeString(t types.Type, depth int) string {
	if depth > 16 {
		return types.TypeString(t, mainQualifier)
	}
	switch u := t.(type) {
	case *types.Alias:
		return reflectTypeString(types.Unalias(t), depth+1)
	case *types.Pointer:
		return "*" + reflectTypeString(u.Elem(), depth+1)
	case *types.Slice:
		return "[]" + reflectTypeString(u.Elem(), depth+1)
	case *types.Array:
		return "[" + strconv.FormatInt(u.Len(), 10) + "]" + reflectTypeString(u.Elem(), depth+1)
	case *types.Map:
		return "map[" + reflectTypeString(u.Key(), depth+1) + "]" + reflectTypeString(u.Elem(), depth+1)
	case *types.Chan:
		prefix := "chan "
		switch u.Dir() {
		case types.SendOnly:
			prefix = "chan<- "
		case types.RecvOnly:
			prefix = "<-chan "
		}
		return prefix + reflectTypeString(u.Elem(), depth+1)
	case *types.Struct:
		if u.NumFields() == 0 {
			return "struct {}"
		}
		parts := make([]string, u.NumFields())
		for i := range parts {
			f := u.Field(i)
			parts[i] = reflectTypeString(f.Type(), depth+1)
			if !f.Embedded() {
				parts[i] = f.Name() + " " + parts[i]
			}
			if tag := u.Tag(i); tag != "" {
				parts[i] += " " + strconv.Quote(tag)
			}
		}
		return "struct { " + strings.Join(parts, "; ") + " }"
	case *types.Interface:
		if u.Empty() {
			return "interface {}"
		}
	}
	return types.TypeString(t, mainQualifier)
}

// fmtOperand reports whether an argument of type t of a printing function
// of fmt is rewritten by fmtOperands.
func (r *rewriter) fmtOperand(t types.Type) bool {
	_, ok := r.fmtConv(t, 0)
	return ok
}

// fmtMethodNames are the methods that fmt looks for, in fmtOperand's
// order of arguments.
var fmtMethodNames = []string{"Format", "GoString", "Error", "String"}

// fmtMethodSet returns the methods of fmtMethodNames in t's method set
// and true, when t is a type of the session (not generic, not an
// interface), or a pointer to one, and t's method set or its pointer's has
// one of them.
func fmtMethodSet(t types.Type) (map[string]bool, bool) {
	base, ptr := t, false
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		base, ptr = p.Elem(), true
	}
	n, ok := types.Unalias(base).(*types.Named)
	if !ok || !interpretedValueType(n) || n.TypeParams().Len() > 0 || n.TypeArgs().Len() > 0 {
		return nil, false
	}
	has := fmtMethods(t)
	if len(has) == 0 && (ptr || len(fmtMethods(types.NewPointer(t))) == 0) {
		return nil, false
	}
	return has, true
}

// fmtMethods returns the methods of fmtMethodNames, with fmt's
// signatures, in t's method set.
func fmtMethods(t types.Type) map[string]bool {
	ms := types.NewMethodSet(t)
	has := map[string]bool{}
	for _, m := range fmtMethodNames {
		sel := ms.Lookup(nil, m)
		if sel == nil {
			continue
		}
		sig, ok := sel.Type().(*types.Signature)
		if !ok {
			continue
		}
		if m == "Format" {
			has[m] = sig.Params().Len() == 2 && sig.Results().Len() == 0 && isFmtState(sig.Params().At(0).Type()) &&
				types.Identical(sig.Params().At(1).Type(), types.Typ[types.Rune])
		} else {
			has[m] = sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.String])
		}
		if !has[m] {
			delete(has, m)
		}
	}
	return has
}

// isFmtState reports whether t is fmt.State.
func isFmtState(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "fmt" && n.Obj().Name() == "State"
}

// namedArgs records the rewrites of the arguments of call.
func (r *rewriter) namedArgs(call *ast.CallExpr) {
	wrapped := map[ast.Expr]bool{}
	r.fmtOperands(call, wrapped)
	k, ok := fmtFuncs[r.fmtCall(call)]
	if !ok || len(call.Args) <= k+1 {
		return
	}
	tv := r.info.Types[call.Args[k]]
	if tv.Value == nil || !strings.ContainsAny(tv.Value.ExactString(), "T#") {
		return
	}
	for _, a := range call.Args[k+1:] {
		t := r.info.Types[a].Type
		if t == nil || wrapped[a] || !hasNamedBasic(t, 0) {
			continue
		}
		name := types.TypeString(t, func(p *types.Package) string { return p.Name() })
		r.ed.Insert(a.Pos(), rt.Named+"("+strconv.Quote(name)+", ", false)
		r.ed.Insert(a.End(), ")", false)
	}
}

// hasNamedBasic reports whether t, not an interface, holds a named type of
// the session that is neither a struct nor an interface.
func hasNamedBasic(t types.Type, depth int) bool {
	if depth > 8 {
		return false
	}
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		if t.Obj().Pkg() == nil || t.Obj().Pkg().Path() != "main" || t.TypeParams().Len() > 0 {
			return false
		}
		switch t.Underlying().(type) {
		case *types.Struct, *types.Interface:
			return false
		}
		return true
	case *types.Pointer:
		return hasNamedBasic(t.Elem(), depth+1)
	case *types.Slice:
		return hasNamedBasic(t.Elem(), depth+1)
	case *types.Array:
		return hasNamedBasic(t.Elem(), depth+1)
	case *types.Map:
		return hasNamedBasic(t.Key(), depth+1) || hasNamedBasic(t.Elem(), depth+1)
	case *types.Chan:
		return hasNamedBasic(t.Elem(), depth+1)
	}
	return false
}

// logPrintNames are log's printing functions, by the fmt function whose
// arguments they take.
var logPrintNames = map[string]string{
	"Print": "Print", "Printf": "Printf", "Println": "Println",
	"Fatal": "Print", "Fatalf": "Printf", "Fatalln": "Println",
	"Panic": "Print", "Panicf": "Printf", "Panicln": "Println",
}

// isLogLogger reports whether t is log.Logger or a pointer to it, which
// the type checker knows as the symbol table's logLogger (interp/symbols,
// internal/symtypes) and a global's reflect type may show as the runtime's.
func isLogLogger(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	path, name := n.Obj().Pkg().Path(), n.Obj().Name()
	is := func(t reflect.Type) bool { return path == t.PkgPath() && name == t.Name() }
	return path == "log" && name == "Logger" || is(tableLogger) || is(rt.LogLoggerType)
}

// tableLogger is log.Logger in the symbol table.
var tableLogger = symbols.Symbols["log/log"]["Logger"].Type().Elem()

// fmtArgs is the pass "fmtoperands".
func fmtArgs(r *rewriter, n ast.Node) Visit {
	if x, ok := n.(*ast.CallExpr); ok {
		r.namedArgs(x)
	}
	return Next
}
