package interp

import (
	"go/ast"
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
			for _, f := range st.Fields.List {
				if len(f.Names) == 0 || exported(f.Names[0].Name) {
					continue
				}
				r.hideFromJSON(f)
			}
			return true
		})
	}
}

func exported(name string) bool {
	c, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(c)
}

func (r *rewriter) hideFromJSON(f *ast.Field) {
	if f.Tag == nil {
		r.ed.insert(f.Type.End(), " `json:\"-\"`", false)
		return
	}
	tag, err := strconv.Unquote(f.Tag.Value)
	if err != nil {
		return
	}
	if jsonKey.MatchString(tag) {
		tag = jsonKey.ReplaceAllLiteralString(tag, `json:"-"`)
	} else {
		tag = strings.TrimSpace(tag + ` json:"-"`)
	}
	r.ed.replace(f.Tag.Pos(), f.Tag.End(), strconv.Quote(tag))
}
