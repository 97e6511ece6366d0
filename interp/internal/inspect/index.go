package inspect

import (
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

// Index maps import paths and package names to the symbol tables of
// the preloaded packages.
type Index struct {
	ByPath map[string]map[string]reflect.Value
	ByName map[string]string // package name -> import path (first in path order)
}

var (
	pkgIndexOnce sync.Once
	pkgIndex     Index
)

// Packages is the index of the preloaded packages, built once.
func Packages() *Index {
	pkgIndexOnce.Do(func() {
		pkgIndex = Index{ByPath: map[string]map[string]reflect.Value{}, ByName: map[string]string{}}
		var paths []string
		for _, tables := range []map[string]map[string]reflect.Value{stdlib.Symbols, symbols.Symbols} {
			for key, syms := range tables {
				p := path.Dir(key)
				if p == "." || strings.Contains(p, "yaegi") {
					continue
				}
				pkgIndex.ByPath[p] = syms
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
			if _, ok := pkgIndex.ByName[name]; !ok {
				pkgIndex.ByName[name] = p
			}
		}
	})
	return &pkgIndex
}

// Builtins are the predeclared identifiers.
var Builtins = []string{
	"append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min", "new", "panic",
	"print", "println", "real", "recover",
	"any", "bool", "byte", "comparable", "complex128", "complex64", "error", "float32", "float64", "int", "int16",
	"int32", "int64", "int8", "rune", "string", "uint", "uint16", "uint32", "uint64", "uint8", "uintptr",
	"true", "false", "iota", "nil",
}

// IsIdentRune reports whether r may be part of an identifier.
func IsIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// IdentAt returns the byte range of the identifier around cursor and the
// dotted expression before it ("a.b" for "a.b.c|"), if any.
func IdentAt(code string, cursor int) (start, end int, qual string) {
	cursor = max(0, min(cursor, len(code)))
	start = cursor
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(code[:start])
		if !IsIdentRune(r) {
			break
		}
		start -= size
	}
	end = cursor
	for end < len(code) {
		r, size := utf8.DecodeRuneInString(code[end:])
		if !IsIdentRune(r) {
			break
		}
		end += size
	}
	q := start
	for q > 0 && code[q-1] == '.' {
		k := q - 1
		for k > 0 {
			r, size := utf8.DecodeLastRuneInString(code[:k])
			if !IsIdentRune(r) {
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

// ContainsWord reports whether w is one of the identifiers of text.
func ContainsWord(text, w string) bool {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !IsIdentRune(r) }) {
		if f == w {
			return true
		}
	}
	return false
}
