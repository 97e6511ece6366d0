package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gnnlab/gnnlab/interp/internal/rt"
)

// Unexported fields and encoding/json.
//
// yaegi builds a cell's struct types with reflect.StructOf, which takes
// exported fields only: an unexported field x becomes the exported Xx, and
// encoding/json wrote it ("Xx":0) and filled it, where Go ignores
// unexported fields. The session gives each unexported field of a
// declared struct type (not an embedded one) the tag json:"-", replacing a
// json key it had.
//
// StructOf also gives two struct types with the same fields one reflect
// type (type A struct{ n int } and type B struct{ n int }), and the
// session's tables of types with methods and names (internal/rt/ifacevalue.go,
// internal/rt/fmtnames.go) are keyed by reflect type: A{1} printed by B's String
// method, its %T was main.B, and x.(I) of an A asked B's methods. So the
// first field of a declared struct type that has the fields of another
// type of the session (in scope where it is declared: the same names,
// tags and underlying types of fields) gets the tag key gnnlabtype:"B"
// (reflect's Tag.Get of other keys is unchanged). Only then: yaegi does
// not assign a value of an unnamed struct type to a variable of a struct
// type with a different tag (var p P = struct{ X, Y int }{1, 2}).
//
// A struct type without fields (type square struct{}, the strategy
// pattern's) has no field to tag: when another named struct type without
// fields is in scope, it gets the field _ __gnnlab_rt.EmptyTag with the
// tags json:"-" gnnlabtype:"Name". EmptyTag has no size and prints as
// nothing, so %v is still {}. yaegi then refuses to convert struct{}{} to
// the type: a conversion between struct types without fields of a
// variable or a literal (token(struct{}{})), and struct{}{} assigned to a
// variable of such a type, are written as T{}. Other uses of a struct{}
// value as such a type (a call argument) fail to compile.

var jsonKey = regexp.MustCompile(`json:"(?:[^"\\]|\\.)*"`)

// unexportedTags records the tag edits of the struct types of decl.
func (r *rewriter) unexportedTags(decl *ast.GenDecl) {
	for _, sp := range decl.Specs {
		ts, ok := sp.(*ast.TypeSpec)
		if !ok {
			continue
		}
		if st, ok := ts.Type.(*ast.StructType); ok && ts.Assign == 0 && len(st.Fields.List) == 0 && r.emptyTwin(ts.Name) {
			r.ed.Insert(st.Fields.Closing, " _ "+rt.EmptyTag+" `json:\"-\" gnnlabtype:"+strconv.Quote(ts.Name.Name)+"` ", false)
			continue
		}
		ast.Inspect(ts.Type, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for k, f := range st.Fields.List {
				hide := len(f.Names) > 0 && !exported(f.Names[0].Name)
				key := ""
				if k == 0 && st == ts.Type && ts.Assign == 0 && r.sameFields(ts.Name) {
					key = ts.Name.Name
				}
				if hide || key != "" {
					r.fieldTag(f, hide, key)
				}
			}
			return true
		})
	}
}

func exported(name string) bool {
	c, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(c)
}

// fieldTag records the edit of f's tag: with json:"-" where hide is set,
// and the key gnnlabtype:"typeName" where typeName is not "".
func (r *rewriter) fieldTag(f *ast.Field, hide bool, typeName string) {
	tag := ""
	if f.Tag != nil {
		var err error
		if tag, err = strconv.Unquote(f.Tag.Value); err != nil {
			return
		}
	}
	switch {
	case hide && jsonKey.MatchString(tag):
		tag = jsonKey.ReplaceAllLiteralString(tag, `json:"-"`)
	case hide:
		tag = strings.TrimSpace(tag + ` json:"-"`)
	}
	if typeName != "" {
		tag = strings.TrimSpace(tag + ` gnnlabtype:` + strconv.Quote(typeName))
	}
	lit := "`" + tag + "`"
	if strings.Contains(tag, "`") {
		lit = strconv.Quote(tag)
	}
	if f.Tag == nil {
		r.ed.Insert(f.Type.End(), " "+lit, false)
		return
	}
	r.ed.Replace(f.Tag.Pos(), f.Tag.End(), lit)
}

// sameFields reports whether the struct type that name declares has the
// fields (names, tags and underlying types) of another named struct type
// in scope where it is declared, so that yaegi would give the two one
// reflect type.
func (r *rewriter) sameFields(name *ast.Ident) bool {
	tn, ok := r.info.Defs[name].(*types.TypeName)
	if !ok {
		return false
	}
	shape := fieldShape(tn.Type())
	if shape == "" {
		return false
	}
	for sc := tn.Parent(); sc != nil && sc != types.Universe; sc = sc.Parent() {
		for _, n := range sc.Names() {
			other, ok := sc.Lookup(n).(*types.TypeName)
			if ok && other != tn && !other.IsAlias() && fieldShape(other.Type()) == shape {
				return true
			}
		}
	}
	return false
}

// emptyTwin reports whether the type that name declares is a struct type
// without fields and another named struct type without fields is in scope
// where it is declared (yaegi gives them all one reflect type).
func (r *rewriter) emptyTwin(name *ast.Ident) bool {
	tn, ok := r.info.Defs[name].(*types.TypeName)
	if !ok || !emptyStruct(tn.Type()) {
		return false
	}
	for sc := tn.Parent(); sc != nil && sc != types.Universe; sc = sc.Parent() {
		for _, n := range sc.Names() {
			other, ok := sc.Lookup(n).(*types.TypeName)
			if ok && other != tn && !other.IsAlias() && emptyStruct(other.Type()) {
				if _, named := other.Type().(*types.Named); named {
					return true
				}
			}
		}
	}
	return false
}

func emptyStruct(t types.Type) bool {
	st, ok := t.Underlying().(*types.Struct)
	return ok && st.NumFields() == 0
}

// fieldShape is the text of the fields of the struct type t, each a name,
// tag and the text of its underlying type, or "" when t is not a struct
// type with fields.
func fieldShape(t types.Type) string {
	st, ok := t.Underlying().(*types.Struct)
	if !ok || st.NumFields() == 0 {
		return ""
	}
	var b strings.Builder
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		b.WriteString(f.Name() + " " + strconv.Quote(st.Tag(i)) + " " + types.TypeString(f.Type().Underlying(), nil) + ";")
	}
	return b.String()
}

// emptyConv writes a conversion between two struct types without fields,
// T(x) with x a variable or a literal, as T{}: yaegi refuses it when one
// of them has the field that emptyTwin adds (cannot convert expression of
// type struct {} to type main.token). It reports whether it did.
func (r *rewriter) emptyConv(call *ast.CallExpr) bool {
	tv, ok := r.info.Types[call.Fun]
	if !ok || !tv.IsType() || len(call.Args) != 1 || call.Ellipsis.IsValid() {
		return false
	}
	return r.emptyValue(tv.Type, call, call.Args[0])
}

// emptyAssigns writes the literals struct{}{} assigned to variables of a
// named struct type without fields (var t token = struct{}{}) as T{},
// for the same reason.
func (r *rewriter) emptyAssigns(n ast.Node) {
	switch x := n.(type) {
	case *ast.ValueSpec:
		if x.Type == nil || len(x.Values) != len(x.Names) {
			return
		}
		t := r.info.TypeOf(x.Type)
		for _, v := range x.Values {
			r.emptyValue(t, v, v)
		}
	case *ast.AssignStmt:
		if x.Tok != token.ASSIGN || len(x.Lhs) != len(x.Rhs) {
			return
		}
		for i, v := range x.Rhs {
			r.emptyValue(r.info.TypeOf(x.Lhs[i]), v, v)
		}
	}
}

// emptyValue replaces e, which becomes the value v of type t, by t{} when
// t and v's type are distinct struct types without fields and v has no
// effects: a variable, a field or an empty composite literal.
func (r *rewriter) emptyValue(t types.Type, e, v ast.Expr) bool {
	vt := r.info.TypeOf(v)
	if t == nil || vt == nil || !emptyStruct(t) || !emptyStruct(vt) || types.Identical(t, vt) {
		return false
	}
	switch x := ast.Unparen(v).(type) {
	case *ast.Ident:
	case *ast.SelectorExpr:
		if _, ok := ast.Unparen(x.X).(*ast.Ident); !ok {
			return false
		}
	case *ast.CompositeLit:
		if len(x.Elts) > 0 {
			return false
		}
	default:
		return false
	}
	text := "struct{}"
	if nt, ok := t.(*types.Named); ok {
		obj := nt.Obj()
		if obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() || nt.TypeArgs() != nil {
			return false // a type the cell may not name here
		}
		text = obj.Name()
	}
	r.ed.Replace(e.Pos(), e.End(), text+"{}")
	return true
}

// structTags is the pass "structtags": a conversion of struct{}{} that it
// rewrites is done, with its children.
func structTags(r *rewriter, n ast.Node) Visit {
	switch x := n.(type) {
	case *ast.GenDecl:
		if x.Tok == token.TYPE {
			r.unexportedTags(x)
		}
	case *ast.ValueSpec:
		r.emptyAssigns(x)
	case *ast.AssignStmt:
		r.emptyAssigns(x)
	case *ast.CallExpr:
		if r.emptyConv(x) {
			return Prune
		}
	}
	return Next
}
