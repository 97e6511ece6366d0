package rewrite

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/declname"
	"github.com/gnnlab/gnnlab/interp/internal/rt"
)

// The registration calls that tell the runtime (internal/rt) about the
// types a cell declares, written as source that the session evaluates
// after the declarations.

// structTypes returns the registration calls for the struct types that
// decls declare (not generic ones): __gnnlab_rt.Name("main.T", "a,b",
// (*T)(nil)), or "".
func structTypes(decls []ast.Decl) string {
	var b strings.Builder
	for _, d := range decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, sp := range gd.Specs {
			ts, ok := sp.(*ast.TypeSpec)
			if !ok || ts.TypeParams != nil || ts.Name.Name == "_" {
				continue
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			var fields []string
			for _, f := range st.Fields.List {
				if len(f.Names) == 0 {
					// An embedded field is named by its type: T, *T,
					// pkg.T, T[K] or pkg.T[K].
					t := f.Type
					if st, ok := t.(*ast.StarExpr); ok {
						t = st.X
					}
					switch x := t.(type) {
					case *ast.IndexExpr:
						t = x.X
					case *ast.IndexListExpr:
						t = x.X
					}
					if sel, ok := t.(*ast.SelectorExpr); ok {
						t = sel.Sel
					}
					fields = append(fields, declname.Recv(t))
				}
				for _, n := range f.Names {
					fields = append(fields, n.Name)
				}
			}
			fmt.Fprintf(&b, "%s(%q, %q, (*%s)(nil))\n", rt.Name, "main."+ts.Name.Name, strings.Join(fields, ","), ts.Name.Name)
		}
	}
	return b.String()
}

// anyTypes returns the registration calls, for values in an any, of the
// named types that decls declare or give methods (not generic ones, not
// interfaces): for a type T of another kind than struct with methods, or
// a struct type T or *T whose method set or pointer's has a method fmt
// looks for, func(sample any) { __gnnlab_rt.FmtAny("T", sample, func(v
// any) any { return CONV(v.(T)) }, ERR) }(*new(T)), CONV the function
// literal of fmtConv (or a plain operand where T's method set has no
// method fmt looks for), ERR a conversion to error for a T of another
// kind than struct that implements error, else nil. The call of the
// literal gives FmtAny the zero value in yaegi's wrapper. yaegi keeps
// values of other types, and pointers to types of other kinds than
// struct, bare in an any: they are left out.
func (r *rewriter) anyTypes(decls []ast.Decl) string {
	var b strings.Builder
	for _, tn := range declaredTypes(decls, r.info) {
		named, ok := tn.Type().(*types.Named)
		if !ok || named.TypeParams().Len() > 0 || tn.Parent() != tn.Pkg().Scope() {
			continue
		}
		_, isStruct := named.Underlying().(*types.Struct)
		if types.IsInterface(named) || !isStruct && types.NewMethodSet(types.NewPointer(named)).Len() == 0 {
			continue // yaegi keeps a value without methods bare
		}
		for _, t := range []types.Type{named, types.NewPointer(named)} {
			text, ok := typeText(t, r.names)
			if !ok {
				break
			}
			_, isPtr := t.(*types.Pointer)
			conv, hasConv := r.fmtConv(t, 0)
			if _, fmtType := fmtMethodSet(t); !fmtType {
				hasConv = false
			}
			if !hasConv && isStruct || isPtr && !isStruct {
				continue // a pointer to a type of another kind is bare
			}
			if !hasConv {
				conv = "func(" + helperPrefix + "f0 " + text + ") any { return " + rt.Operand + "(" + strconv.Quote(reflectTypeString(t, 0)) + ", " + helperPrefix + "f0, nil, nil, nil, nil) }"
			}
			errConv := "nil"
			if !isStruct && !isPtr && types.Implements(t, types.Universe.Lookup("error").Type().Underlying().(*types.Interface)) {
				errConv = "func(v any) error { return v.(" + text + ") }"
			}
			zero := "*new(" + text + ")"
			if isPtr {
				zero = "new(" + strings.TrimPrefix(text, "*") + ")"
			}
			yname := strings.TrimPrefix(text, "*")
			if isPtr {
				yname = "*" + yname
			}
			b.WriteString("func(sample any) { " + rt.FmtAny + "(" + strconv.Quote(yname) + ", sample, func(v any) any { return " + conv + "(v.(" + text + ")) }, " + errConv + ") }(" + zero + ")\n")
		}
	}
	return b.String()
}

// declaredTypes returns the type names that decls declare at the top
// level or give methods, once each, in order.
func declaredTypes(decls []ast.Decl, info *types.Info) []*types.TypeName {
	var names []*types.TypeName
	add := func(obj types.Object) {
		tn, ok := obj.(*types.TypeName)
		if ok && tn.Name() != "_" && !tn.IsAlias() && !slices.Contains(names, tn) {
			names = append(names, tn)
		}
	}
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok && ts.TypeParams == nil && ts.Assign == 0 {
					add(info.Defs[ts.Name])
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) != 1 {
				continue
			}
			t := d.Recv.List[0].Type
			if star, ok := t.(*ast.StarExpr); ok {
				t = star.X
			}
			if id, ok := ast.Unparen(t).(*ast.Ident); ok {
				add(info.Uses[id])
			}
		}
	}
	return names
}

// methodTypes returns the registration calls of the struct types that
// decls declare or give methods, when the type's pointer has methods (not
// generic ones), or "": for T and for *T, __gnnlab_rt.Methods((*T)(nil),
// false, "Error,Unwrap", func(v any) any { return __gnnlab_wrapany(v.(T))
// }, func(v any) __gnnlab_rt.ErrorType { return v.(T) }, nil): the method
// set's names, and the conversions, nil where the type has no methods or
// is not an error or a fmt.Stringer. Passing the asserted value to the interpreted
// __gnnlab_wrapany, whose parameter is an any, is what makes yaegi wrap
// it.
func methodTypes(decls []ast.Decl, info *types.Info) string {
	if len(decls) == 0 {
		return ""
	}
	// Aliases, which declaredTypes leaves out, are no named types.
	names := declaredTypes(decls, info) // internal/rt/fmtany.go
	if len(names) == 0 {
		return ""
	}
	errT := types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
	strT := types.NewInterfaceType([]*types.Func{types.NewFunc(0, nil, "String",
		types.NewSignatureType(nil, nil, nil, nil, types.NewTuple(types.NewVar(0, nil, "", types.Typ[types.String])), false))}, nil).Complete()
	var b strings.Builder
	for _, tn := range names {
		named, ok := tn.Type().(*types.Named)
		if !ok || named.TypeParams().Len() > 0 || tn.Parent() != tn.Pkg().Scope() {
			continue
		}
		switch named.Underlying().(type) {
		case *types.Interface:
			continue
		case *types.Struct:
		default:
			if types.NewMethodSet(types.NewPointer(named)).Len() > 0 {
				fmt.Fprintf(&b, "%s(%q, (*%s)(nil))\n", rt.NamedKind, "main."+tn.Name(), tn.Name())
			}
			continue
		}
		for _, pointer := range []bool{false, true} {
			var t types.Type = named
			text := tn.Name()
			if pointer {
				t, text = types.NewPointer(named), "*"+tn.Name()
			}
			mset := types.NewMethodSet(t)
			if mset.Len() == 0 && (pointer || types.NewMethodSet(types.NewPointer(named)).Len() == 0) {
				continue
			}
			var ms []string
			for i := 0; i < mset.Len(); i++ {
				ms = append(ms, mset.At(i).Obj().Name())
			}
			wrap := "nil"
			if mset.Len() > 0 {
				wrap = "func(v any) any { return " + helperPrefix + "wrapany(v.(" + text + ")) }"
			}
			conv := func(iface *types.Interface, typ string) string {
				if !types.Implements(t, iface) {
					return "nil"
				}
				return "func(v any) " + typ + " { return v.(" + text + ") }"
			}
			fmt.Fprintf(&b, "%s((*%s)(nil), %t, %q, %s, %s, %s)\n",
				rt.Methods, tn.Name(), pointer, strings.Join(ms, ","), wrap, conv(errT, rt.ErrorType), conv(strT, rt.StringerType))
		}
	}
	return b.String()
}
