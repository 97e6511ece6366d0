package interp

import (
	"go/token"
	"path"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/gnnlab/gnnlab/interp/symbols"
	"github.com/traefik/yaegi/stdlib"
)

// packageIndex maps import paths and package names to the symbol tables of
// the preloaded packages.
type packageIndex struct {
	byPath map[string]map[string]reflect.Value
	byName map[string]string // package name -> import path (first in path order)
}

var (
	pkgIndexOnce sync.Once
	pkgIndex     packageIndex
)

func packages() *packageIndex {
	pkgIndexOnce.Do(func() {
		pkgIndex = packageIndex{byPath: map[string]map[string]reflect.Value{}, byName: map[string]string{}}
		var paths []string
		for _, tables := range []map[string]map[string]reflect.Value{stdlib.Symbols, symbols.Symbols} {
			for key, syms := range tables {
				p := path.Dir(key)
				if p == "." || strings.Contains(p, "yaegi") {
					continue
				}
				pkgIndex.byPath[p] = syms
				paths = append(paths, p)
			}
		}
		// Shorter paths first, so that "rand" is math/rand, not crypto/rand.
		sort.Slice(paths, func(a, b int) bool {
			if len(paths[a]) != len(paths[b]) {
				return len(paths[a]) < len(paths[b])
			}
			return paths[a] < paths[b]
		})
		for _, p := range paths {
			name := path.Base(p)
			if _, ok := pkgIndex.byName[name]; !ok {
				pkgIndex.byName[name] = p
			}
		}
	})
	return &pkgIndex
}

// importPath resolves a package name used in a cell: the session's imports
// first, then the preloaded package of that name.
func (s *Session) importPath(name string) (string, bool) {
	for k := len(s.imports) - 1; k >= 0; k-- {
		if s.imports[k].name == name {
			return s.imports[k].path, true
		}
	}
	p, ok := packages().byName[name]
	return p, ok
}

var builtins = []string{
	"append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min", "new", "panic",
	"print", "println", "real", "recover",
	"any", "bool", "byte", "comparable", "complex128", "complex64", "error", "float32", "float64", "int", "int16",
	"int32", "int64", "int8", "rune", "string", "uint", "uint16", "uint32", "uint64", "uint8", "uintptr",
	"true", "false", "iota", "nil",
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// identAt returns the byte range of the identifier around cursor and the
// dotted expression before it ("a.b" for "a.b.c|"), if any.
func identAt(code string, cursor int) (start, end int, qual string) {
	cursor = max(0, min(cursor, len(code)))
	start = cursor
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(code[:start])
		if !isIdentRune(r) {
			break
		}
		start -= size
	}
	end = cursor
	for end < len(code) {
		r, size := utf8.DecodeRuneInString(code[end:])
		if !isIdentRune(r) {
			break
		}
		end += size
	}
	q := start
	for q > 0 && code[q-1] == '.' {
		k := q - 1
		for k > 0 {
			r, size := utf8.DecodeLastRuneInString(code[:k])
			if !isIdentRune(r) {
				break
			}
			k -= size
		}
		if k == q-1 {
			break
		}
		q = k
	}
	if q < start {
		qual = code[q : start-1]
	}
	return start, end, qual
}

// Complete returns completions for code at cursor (a byte offset), and the
// byte range [start, end) of code that they replace.
func (s *Session) Complete(code string, cursor int) (matches []string, start, end int) {
	start, end, qual := identAt(code, cursor)
	prefix := code[start:min(max(cursor, start), len(code))]
	seen := map[string]bool{}
	add := func(name string) {
		if strings.HasPrefix(name, prefix) && !seen[name] && !strings.HasPrefix(name, "_") {
			seen[name] = true
			matches = append(matches, name)
		}
	}
	if qual != "" {
		for _, m := range s.members(qual) {
			add(m)
		}
	} else {
		for tok := token.BREAK; tok <= token.VAR; tok++ {
			if tok.IsKeyword() {
				add(tok.String())
			}
		}
		for _, b := range builtins {
			add(b)
		}
		for name := range globalsOf(s.i) {
			add(name)
		}
		for name := range s.user {
			if !strings.Contains(name, ".") {
				add(name)
			}
		}
		for _, im := range s.imports {
			add(im.name)
		}
		if prefix != "" {
			for name := range packages().byName {
				add(name)
			}
		}
	}
	sort.Strings(matches)
	return matches, start, end
}

// members lists what can follow "qual.": a package's symbols, or the
// fields and methods of a session variable's value.
func (s *Session) members(qual string) []string {
	parts := strings.Split(qual, ".")
	var out []string
	if len(parts) == 1 {
		if _, isVar := globalsOf(s.i)[qual]; !isVar {
			if p, ok := s.importPath(qual); ok {
				for name := range packages().byPath[p] {
					out = append(out, name)
				}
				return out
			}
		}
	}
	v, ok := globalsOf(s.i)[parts[0]]
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
	return s.fieldsAndMethods(v)
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
func (s *Session) fieldsAndMethods(v reflect.Value) []string {
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
				fields = append(fields, cellField(f.Name, s.declaresWord))
			case f.IsExported():
				fields = append(fields, f.Name)
			}
		}
		out = append(out, fields...)
		if st.Name() == "" {
			// An interpreted struct: methods of the recorded types with
			// these fields.
			for _, tn := range s.typesWithFields(fields) {
				out = append(out, s.methodsOf(tn)...)
			}
		}
	}
	return out
}

func (s *Session) typesWithFields(fields []string) []string {
	var names []string
	for name, r := range s.user {
		if r.tok != token.TYPE || strings.Contains(name, ".") || r.dead {
			continue
		}
		ok := true
		for _, f := range fields {
			if !containsWord(r.text, f) {
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

func (s *Session) methodsOf(typeName string) []string {
	var out []string
	for name, r := range s.user {
		if r.method && strings.HasPrefix(name, typeName+".") {
			out = append(out, strings.TrimPrefix(name, typeName+"."))
		}
	}
	return out
}

// declaresWord reports whether a type declaration of the session has the
// word w.
func (s *Session) declaresWord(w string) bool {
	for _, r := range s.user {
		if r.tok == token.TYPE && containsWord(r.text, w) {
			return true
		}
	}
	return false
}

func containsWord(text, w string) bool {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !isIdentRune(r) }) {
		if f == w {
			return true
		}
	}
	return false
}
