package complete

import (
	"fmt"
	"go/token"
	"iter"
	"reflect"
	"sort"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/inspect"
	"github.com/gnnlab/gnnlab/interp/internal/sigdoc"
)

// Session is what completion and inspection read of a session, between
// cells (never while one runs).
type Session interface {
	// Globals returns the interpreter's globals by name.
	Globals() map[string]reflect.Value
	// Imports returns the imports of the session's cells, in order.
	Imports() []Import
	// Decl returns the session's declaration of name ("Type.Method" for
	// a method).
	Decl(name string) (*Decl, bool)
	// Decls yields every declaration of the session by name.
	Decls() iter.Seq2[string, *Decl]
}

// Import is an import of a cell: the name it is used by, and its path.
type Import struct{ Name, Path string }

// Decl is a top-level declaration of a cell.
type Decl struct {
	Names  []string    // defined names; methods as "Type.Method"
	Tok    token.Token // token.TYPE, VAR, CONST or FUNC
	Method bool
	Text   string // the declaration as written
	Doc    string
	Cell   int  // the number of its cell
	Dead   bool // every name redefined by a later cell
}

// importPath resolves a package name used in a cell: the session's imports
// first, then the preloaded package of that name.
func importPath(s Session, name string) (string, bool) {
	imports := s.Imports()
	for k := len(imports) - 1; k >= 0; k-- {
		if imports[k].Name == name {
			return imports[k].Path, true
		}
	}
	p, ok := inspect.Packages().ByName[name]
	return p, ok
}

// Complete returns completions for code at cursor (a byte offset), and the
// byte range [start, end) of code that they replace.
func Complete(s Session, code string, cursor int) (matches []string, start, end int) {
	start, end, qual := inspect.IdentAt(code, cursor)
	prefix := code[start:min(max(cursor, start), len(code))]
	seen := map[string]bool{}
	add := func(name string) {
		if strings.HasPrefix(name, prefix) && !seen[name] && !strings.HasPrefix(name, "_") {
			seen[name] = true
			matches = append(matches, name)
		}
	}
	if qual != "" {
		for _, m := range members(s, qual) {
			add(m)
		}
	} else {
		for tok := token.BREAK; tok <= token.VAR; tok++ {
			if tok.IsKeyword() {
				add(tok.String())
			}
		}
		for _, b := range inspect.Builtins {
			add(b)
		}
		for name := range s.Globals() {
			add(name)
		}
		for name := range s.Decls() {
			if !strings.Contains(name, ".") {
				add(name)
			}
		}
		for _, im := range s.Imports() {
			add(im.Name)
		}
		if prefix != "" {
			for name := range inspect.Packages().ByName {
				add(name)
			}
		}
	}
	sort.Strings(matches)
	return matches, start, end
}

// members lists what can follow "qual.": a package's symbols, or the
// fields and methods of a session variable's value.
func members(s Session, qual string) []string {
	parts := strings.Split(qual, ".")
	var out []string
	if len(parts) == 1 {
		if _, isVar := s.Globals()[qual]; !isVar {
			if p, ok := importPath(s, qual); ok {
				for name := range inspect.Packages().ByPath[p] {
					out = append(out, name)
				}
				return out
			}
		}
	}
	v, ok := s.Globals()[parts[0]]
	if !ok || !v.IsValid() {
		return nil
	}
	for _, f := range parts[1:] {
		v = deref(v)
		if v.Kind() != reflect.Struct {
			return nil
		}
		if v.Type().Name() == "" {
			// An interpreted struct: yaegi stores field x as Xx.
			if sf, ok := v.Type().FieldByName(f); !ok || !sf.IsExported() {
				f = interpField(f)
			}
		} else if !token.IsExported(f) {
			return nil // a cell cannot use it
		}
		v = v.FieldByName(f)
		if !v.IsValid() {
			return nil
		}
	}
	return fieldsAndMethods(s, v)
}

// interpField is the name yaegi gives field f of an interpreted struct:
// reflect.StructOf takes exported fields only, so x becomes Xx.
func interpField(f string) string {
	if token.IsExported(f) {
		return f
	}
	return "X" + f
}

// cellField is the inverse of interpField: the name a cell wrote for
// field f of an interpreted struct, given the words of its declarations.
func cellField(f string, declared func(string) bool) string {
	if len(f) > 1 && f[0] == 'X' && !token.IsExported(f[1:]) && !declared(f) {
		return f[1:]
	}
	return f
}

func deref(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && !v.IsNil() {
		v = v.Elem()
	}
	return v
}

// fieldsAndMethods lists what a cell may select from v: the exported
// fields and methods of a compiled type (its unexported ones are out of a
// cell's reach, and yaegi panics on them), and all the fields and methods
// of an interpreted type, methods from the session's records.
func fieldsAndMethods(s Session, v reflect.Value) []string {
	var out []string
	t := v.Type()
	for k := 0; k < t.NumMethod(); k++ {
		out = append(out, t.Method(k).Name)
	}
	if t.Kind() == reflect.Pointer {
		for k := 0; k < t.Elem().NumMethod(); k++ {
			out = append(out, t.Elem().Method(k).Name)
		}
	}
	v = deref(v)
	if !v.IsValid() {
		return out
	}
	if v.Kind() == reflect.Struct {
		st := v.Type()
		var fields []string
		for k := 0; k < st.NumField(); k++ {
			f := st.Field(k)
			switch {
			case st.Name() == "":
				fields = append(fields, cellField(f.Name, func(w string) bool { return declaresWord(s, w) }))
			case f.IsExported():
				fields = append(fields, f.Name)
			}
		}
		out = append(out, fields...)
		if st.Name() == "" {
			// An interpreted struct: methods of the recorded types with
			// these fields.
			for _, tn := range typesWithFields(s, fields) {
				out = append(out, methodsOf(s, tn)...)
			}
		}
	}
	return out
}

func typesWithFields(s Session, fields []string) []string {
	var names []string
	for name, r := range s.Decls() {
		if r.Tok != token.TYPE || strings.Contains(name, ".") || r.Dead {
			continue
		}
		ok := true
		for _, f := range fields {
			if !inspect.ContainsWord(r.Text, f) {
				ok = false
				break
			}
		}
		if ok {
			names = append(names, name)
		}
	}
	return names
}

func methodsOf(s Session, typeName string) []string {
	var out []string
	for name, r := range s.Decls() {
		if r.Method && strings.HasPrefix(name, typeName+".") {
			out = append(out, strings.TrimPrefix(name, typeName+"."))
		}
	}
	return out
}

// declaresWord reports whether a type declaration of the session has the
// word w.
func declaresWord(s Session, w string) bool {
	for _, r := range s.Decls() {
		if r.Tok == token.TYPE && inspect.ContainsWord(r.Text, w) {
			return true
		}
	}
	return false
}

// Inspect returns documentation (signature and doc comment, and for a
// compiled symbol its first runnable example) for the identifier at cursor
// (a byte offset); detail > 0 (name??) asks for the declaration's source
// too: the cell's text of the user's declarations, the package's source of
// compiled ones.
func Inspect(s Session, code string, cursor, detail int) (text string, found bool) {
	start, end, qual := inspect.IdentAt(code, cursor)
	name := code[start:end]
	if name == "" {
		// In a call's arguments (f(|, f(a, |): the callee (inspect.CallOpen).
		if open := inspect.CallOpen(code, cursor); open > 0 {
			return Inspect(s, code, open, detail)
		}
		return "", false
	}
	if qual == "" {
		if r, ok := s.Decl(name); ok {
			return userDoc(r, detail), true
		}
		if v, ok := s.Globals()[name]; ok && v.IsValid() {
			val := fmt.Sprintf("%v", v)
			if len(val) > 200 {
				val = val[:200] + "…"
			}
			return fmt.Sprintf("var %s %s\n\n%s", name, v.Type(), val), true
		}
		if p, ok := importPath(s, name); ok {
			return inspect.PackageDoc(p), true
		}
		if start == 0 || code[start-1] != '.' {
			return "", false
		}
	}
	if parts := strings.Split(qual, "."); qual != "" && len(parts) == 1 {
		if _, isVar := s.Globals()[qual]; !isVar {
			if p, ok := importPath(s, qual); ok {
				return inspect.SymbolDetail(p, name, detail)
			}
		}
		if text, ok := inspect.MethodDetail(s.Globals()[qual], name, detail); ok {
			return text, true
		}
		if r, ok := s.Decl(qual); ok && r.Tok == token.TYPE {
			if m, ok := s.Decl(qual + "." + name); ok {
				return userDoc(m, detail), true
			}
		}
	}
	// pkg.Type.Method.
	if parts := strings.Split(qual, "."); len(parts) == 2 {
		if _, isVar := s.Globals()[parts[0]]; !isVar {
			if p, ok := importPath(s, parts[0]); ok {
				if text, ok := inspect.SymbolDetail(p, parts[1]+"."+name, detail); ok {
					return text, true
				}
			}
		}
	}
	// x.Method of a value of an interpreted type.
	for _, t := range s.Decls() {
		if t.Tok != token.TYPE {
			continue
		}
		for _, tn := range t.Names {
			if m, ok := s.Decl(tn + "." + name); ok && m.Method {
				return userDoc(m, detail), true
			}
		}
	}
	return "", false
}

// userDoc documents a declaration of a cell: its signature printed as
// those of compiled packages are (sigdoc), or with detail > 0 its text.
func userDoc(r *Decl, detail int) string {
	text := sigdoc.Source(r.Text, "")
	if detail > 0 {
		text = r.Text
	}
	if r.Doc != "" {
		text += "\n\n" + strings.TrimRight(r.Doc, "\n")
	}
	return text + fmt.Sprintf("\n\n(defined in cell[%d])", r.Cell)
}
