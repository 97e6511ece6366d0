package rewrite

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/rt"
)

// Calls of encoding/json on values of the session's types with MarshalJSON
// or UnmarshalJSON methods, or with embedded structs (internal/rt/json.go).
//
// encoding/json called neither method of an interpreted type: yaegi's
// reflect types have no methods. Where the static type of the value of
// json.Marshal(v), json.MarshalIndent(v, ...) or enc.Encode(v) holds such
// a type (as itself, an element, a map value, a field, through pointers),
// or a struct that embeds a struct (yaegi's reflect type does not mark the
// field embedded, and encoding/json did not promote its fields), v becomes
//
//	__gnnlab_rt.JSONValue(v, plan, []func(any) ([]byte, error){...}, []bool{...}, []string{...})
//
// (and enc.Encode(v) __gnnlab_rt.JSONEncode(enc, ...), whose error names
// the type whose MarshalJSON failed, as the session's json.Marshal does)
// and the target p of json.Unmarshal(data, p) becomes
//
//	__gnnlab_rt.JSONTarget(p, plan, []func(any, []byte) error{...})
//
// (dec.Decode(p) __gnnlab_rt.JSONDecode(dec, p, plan, ...), which keeps
// the Decoder's settings)
// with the plan of where the values with methods are (internal/rt/json.go) and, for
// each of their types T, func(p any) ([]byte, error) { return
// p.(*T).MarshalJSON() } or func(p any, b []byte) error { return
// p.(*T).UnmarshalJSON(b) } (nil without the method). A value held in an
// interface (an any field) is not seen: its type is not static.

// jsonCall records the rewrite of call where it is such a call.
func (r *rewriter) jsonCall(call *ast.CallExpr) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || call.Ellipsis.IsValid() || len(call.Args) == 0 {
		return
	}
	fn, ok := r.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "encoding/json" {
		return
	}
	recv := ""
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		t := sig.Recv().Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok {
			recv = n.Obj().Name()
		}
	}
	var arg ast.Expr
	decode := false
	switch recv + "." + fn.Name() {
	case ".Marshal", ".MarshalIndent", "Encoder.Encode":
		arg = call.Args[0]
	case ".Unmarshal":
		if len(call.Args) != 2 {
			return
		}
		arg, decode = call.Args[1], true
	case "Decoder.Decode":
		arg, decode = call.Args[0], true
	default:
		return
	}
	t := r.info.Types[arg].Type
	if t == nil || hasTypeParam(t) {
		return
	}
	if decode {
		p, ok := t.Underlying().(*types.Pointer)
		if !ok {
			return
		}
		t = p.Elem()
	}
	var hooks []*types.Named
	plan := jsonPlanOf(t, &hooks, nil)
	if plan == "." {
		return
	}
	var fns, addr, names []string
	for _, h := range hooks {
		text, ok := typeText(h, r.names)
		if !ok {
			return
		}
		marshal, ptrOnly, unmarshal := jsonMethods(h)
		switch {
		case decode && unmarshal:
			fns = append(fns, "func(p any, b []byte) error { return p.(*"+text+").UnmarshalJSON(b) }")
		case !decode && marshal:
			fns = append(fns, "func(p any) ([]byte, error) { return p.(*"+text+").MarshalJSON() }")
		default:
			fns = append(fns, "nil")
		}
		addr = append(addr, strconv.FormatBool(ptrOnly))
		names = append(names, strconv.Quote(types.TypeString(h, mainQualifier)))
	}
	if decode {
		tail := ", " + strconv.Quote(plan) + ", []func(any, []byte) error{" + strings.Join(fns, ", ") + "}"
		if recv == "Decoder" {
			// With the Decoder's settings (UseNumber...).
			r.ed.Replace(call.Fun.Pos(), sel.X.Pos(), rt.JSONDecode+"(")
			r.ed.Replace(sel.X.End(), call.Lparen+1, ", ")
		} else {
			r.ed.Insert(arg.Pos(), rt.JSONTarget+"(", false)
			tail += ")"
		}
		r.ed.Insert(arg.End(), tail, false)
		return
	}
	if recv == "Encoder" {
		// The error names the type as Go does (internal/rt/json.go's
		// jsonMarshalError; json.Marshal and MarshalIndent are the
		// session's).
		r.ed.Replace(call.Fun.Pos(), sel.X.Pos(), rt.JSONEncode+"(")
		r.ed.Replace(sel.X.End(), call.Lparen+1, ", ")
	}
	r.ed.Insert(arg.Pos(), rt.JSONValue+"(", false)
	r.ed.Insert(arg.End(), ", "+strconv.Quote(plan)+", []func(any) ([]byte, error){"+strings.Join(fns, ", ")+"}, []bool{"+
		strings.Join(addr, ", ")+"}, []string{"+strings.Join(names, ", ")+"})", false)
}

// jsonPlanOf returns the plan (internal/rt/json.go) of a value of type t, adding the
// types with methods that it names to hooks; outer holds the named types
// that t is inside of (a recursive type's inner values are not planned).
func jsonPlanOf(t types.Type, hooks *[]*types.Named, outer []*types.Named) string {
	if n, ok := types.Unalias(t).(*types.Named); ok {
		for _, o := range outer {
			if o == n {
				return "."
			}
		}
		if pkg := n.Obj().Pkg(); pkg != nil && pkg.Path() == "main" && n.TypeParams().Len() == 0 {
			if m, _, u := jsonMethods(n); m || u {
				for k, h := range *hooks {
					if h == n {
						return "#" + strconv.Itoa(k)
					}
				}
				*hooks = append(*hooks, n)
				return "#" + strconv.Itoa(len(*hooks)-1)
			}
		}
		outer = append(outer, n)
	}
	sub := func(prefix string, e types.Type) string {
		if p := jsonPlanOf(e, hooks, outer); p != "." {
			return prefix + p
		}
		return "."
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return sub("*", u.Elem())
	case *types.Slice:
		return sub("[", u.Elem())
	case *types.Array:
		return sub("[", u.Elem())
	case *types.Map:
		return sub("m", u.Elem())
	case *types.Struct:
		var b strings.Builder
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			switch {
			case f.Embedded() && structOrPointer(f.Type()):
				// Embedded in the shadow, which yaegi's type is not.
				b.WriteString(strconv.Itoa(i) + "=" + jsonPlanOf(f.Type(), hooks, outer) + ";")
			case f.Embedded() || !f.Exported():
			default:
				if p := jsonPlanOf(f.Type(), hooks, outer); p != "." {
					b.WriteString(strconv.Itoa(i) + ":" + p + ";")
				}
			}
		}
		if b.Len() == 0 {
			return "."
		}
		return "{" + b.String() + "}"
	}
	return "."
}

// jsonMethods reports whether the method set of *T has MarshalJSON() ([]byte,
// error), whether T's lacks it (a pointer receiver), and whether *T has
// UnmarshalJSON([]byte) error.
func jsonMethods(n *types.Named) (marshal, ptrOnly, unmarshal bool) {
	has := func(t types.Type, name, sig string) bool {
		sel := types.NewMethodSet(t).Lookup(n.Obj().Pkg(), name)
		if sel == nil {
			return false
		}
		s, ok := sel.Type().(*types.Signature)
		if !ok {
			return false
		}
		// Without the parameters' names.
		return types.TypeString(types.NewSignatureType(nil, nil, nil, unnamed(s.Params()), unnamed(s.Results()), s.Variadic()), nil) == sig
	}
	ptr := types.NewPointer(n)
	marshal = has(ptr, "MarshalJSON", "func() ([]byte, error)")
	ptrOnly = marshal && !has(n, "MarshalJSON", "func() ([]byte, error)")
	unmarshal = has(ptr, "UnmarshalJSON", "func([]byte) error")
	return marshal, ptrOnly, unmarshal
}

// unnamed is t with its variables' names left out.
func unnamed(t *types.Tuple) *types.Tuple {
	vs := make([]*types.Var, t.Len())
	for i := range vs {
		vs[i] = types.NewParam(0, nil, "", t.At(i).Type())
	}
	return types.NewTuple(vs...)
}

// structOrPointer reports whether t is a struct type or a pointer to one.
func structOrPointer(t types.Type) bool {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	_, ok := t.Underlying().(*types.Struct)
	return ok
}
