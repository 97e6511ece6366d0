package interp

import (
	"go/ast"
	"go/types"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
// session's tables of types with methods and names (ifacevalue.go,
// fmtnames.go) are keyed by reflect type: A{1} printed by B's String
// method, its %T was main.B, and x.(I) of an A asked B's methods. So the
// first field of a declared struct type that has the fields of another
// type of the session (in scope where it is declared: the same names,
// tags and underlying types of fields) gets the tag key gnnlabtype:"B"
// (reflect's Tag.Get of other keys is unchanged). Only then: yaegi does
// not assign a value of an unnamed struct type to a variable of a struct
// type with a different tag (var p P = struct{ X, Y int }{1, 2}). A
// struct type without fields cannot be told apart this way.

var jsonKey = regexp.MustCompile(`json:"(?:[^"\\]|\\.)*"`)

// unexportedTags records the tag edits of the struct types of decl.
func (r *rewriter) unexportedTags(decl *ast.GenDecl) {
	for _, sp := range decl.Specs {
		ts, ok := sp.(*ast.TypeSpec)
		if !ok {
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
		r.ed.insert(f.Type.End(), " "+lit, false)
		return
	}
	r.ed.replace(f.Tag.Pos(), f.Tag.End(), lit)
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
