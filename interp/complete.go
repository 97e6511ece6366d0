package interp

import (
	"iter"
	"reflect"

	"github.com/gnnlab/gnnlab/interp/internal/complete"
)

// Complete returns completions for code at cursor (a byte offset), and the
// byte range [start, end) of code that they replace (internal/complete).
func (s *Session) Complete(code string, cursor int) (matches []string, start, end int) {
	return complete.Complete((*completeView)(s), code, cursor)
}

// Inspect returns documentation (signature and doc comment, and for a
// compiled symbol its first runnable example) for the identifier at cursor
// (a byte offset); detail > 0 (name??) asks for the declaration's source
// too: the cell's text of the user's declarations, the package's source of
// compiled ones (internal/complete).
func (s *Session) Inspect(code string, cursor, detail int) (text string, found bool) {
	return complete.Inspect((*completeView)(s), code, cursor, detail)
}

// completeView is the Session as completion sees it (complete.Session).
type completeView Session

func (v *completeView) Globals() map[string]reflect.Value { return globalsOf(v.i) }

func (v *completeView) Imports() []complete.Import {
	out := make([]complete.Import, len(v.imports))
	for k, im := range v.imports {
		out[k] = complete.Import{Name: im.name, Path: im.path}
	}
	return out
}

func (v *completeView) Decl(name string) (*complete.Decl, bool) {
	r, ok := v.user[name]
	if !ok {
		return nil, false
	}
	return completeDecl(r), true
}

func (v *completeView) Decls() iter.Seq2[string, *complete.Decl] {
	return func(yield func(string, *complete.Decl) bool) {
		for name, r := range v.user {
			if !yield(name, completeDecl(r)) {
				return
			}
		}
	}
}

func completeDecl(r *declRec) *complete.Decl {
	return &complete.Decl{Names: r.names, Tok: r.tok, Method: r.method, Text: r.text, Doc: r.doc, Cell: r.cell, Dead: r.dead}
}
