package rt

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	yaegi "github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// Type names in fmt.
//
// yaegi makes a cell's struct type with reflect.StructOf: the type has no
// name, and the fields that Go does not export get an X in front (x
// becomes Xx), since StructOf accepts only exported fields. fmt's %T,
// %+v and %#v of such a value printed `struct { Xx int; Xy int }` where Go
// prints main.point, {x:1 y:2} and main.point{x:1, y:2}.
//
// The session registers each struct type that a cell declares: the
// reflect.Type yaegi made for it, with its Go name (main.T) and field
// names. The fmt functions that take a format (Printf, Sprintf, Fprintf,
// Errorf, Appendf) are wrapped in the symbol table: for a %T, %+v or %#v
// of an argument whose type holds a registered or an unnamed struct type,
// the argument is replaced by its type's Go name (%T) or by a value that
// prints as fmt would print the Go value (fmt.Formatter). Without such a
// verb, or before any struct type is declared, the call goes straight to
// fmt. The field names of unnamed struct types (struct{ a int } in a
// cell) are read back from yaegi's (Xa is a) when they are not
// registered.

// typeNames is a session's registry of struct types.
type typeNames struct {
	ivals *ifaceValues // the session's, for values with methods (ifacevalue.go)
	mu    sync.RWMutex
	named map[reflect.Type]namedType
	wrap  map[reflect.Type]bool // whether values of a type need formatter
	anys  anyConvs              // values of the cells' types in an any (fmtany.go)
}

type namedType struct {
	name   string   // main.point
	fields []string // Go field names, in order
}

func (tn *typeNames) register(name, fields string, ptr any) {
	t := reflect.TypeOf(ptr)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return
	}
	var fs []string
	if fields != "" {
		fs = strings.Split(fields, ",")
	}
	tn.mu.Lock()
	defer tn.mu.Unlock()
	if tn.named == nil {
		tn.named = map[reflect.Type]namedType{}
	}
	tn.named[t.Elem()] = namedType{name: name, fields: fs}
	tn.wrap = map[reflect.Type]bool{}
}

func (tn *typeNames) lookup(t reflect.Type) (namedType, bool) {
	tn.mu.RLock()
	defer tn.mu.RUnlock()
	nt, ok := tn.named[t]
	return nt, ok
}

// needs reports whether values of t must be printed by the formatter: t
// holds a registered or an interpreted unnamed struct type, or an
// interface (whose dynamic value may be one).
func (tn *typeNames) needs(t reflect.Type) bool {
	tn.mu.RLock()
	r, ok := tn.wrap[t]
	tn.mu.RUnlock()
	if ok {
		return r
	}
	r = tn.scan(t, map[reflect.Type]bool{})
	tn.mu.Lock()
	if tn.wrap == nil {
		tn.wrap = map[reflect.Type]bool{}
	}
	tn.wrap[t] = r
	tn.mu.Unlock()
	return r
}

func (tn *typeNames) scan(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if _, ok := tn.lookup(t); ok {
		return true
	}
	if t.Name() != "" && t.PkgPath() != "" {
		return false // a compiled named type
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return tn.scan(t.Elem(), seen)
	case reflect.Map:
		return tn.scan(t.Key(), seen) || tn.scan(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if mangled(t.Field(i).Name) || tn.scan(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// mangled reports whether yaegi made field name from an unexported one.
func mangled(name string) bool {
	return len(name) > 1 && name[0] == 'X' && !('A' <= name[1] && name[1] <= 'Z')
}

func (tn *typeNames) fieldName(t reflect.Type, i int) string {
	if nt, ok := tn.lookup(t); ok && i < len(nt.fields) {
		return nt.fields[i]
	}
	n := t.Field(i).Name
	if mangled(n) {
		return n[1:]
	}
	return n
}

// typeString is t as Go writes it, with the registered names.
func (tn *typeNames) typeString(t reflect.Type) string {
	if t == nil {
		return "<nil>"
	}
	if nt, ok := tn.lookup(t); ok {
		return nt.name
	}
	if t.Name() != "" {
		return t.String()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + tn.typeString(t.Elem())
	case reflect.Slice:
		return "[]" + tn.typeString(t.Elem())
	case reflect.Array:
		return "[" + strconv.Itoa(t.Len()) + "]" + tn.typeString(t.Elem())
	case reflect.Map:
		return "map[" + tn.typeString(t.Key()) + "]" + tn.typeString(t.Elem())
	case reflect.Chan:
		switch t.ChanDir() {
		case reflect.RecvDir:
			return "<-chan " + tn.typeString(t.Elem())
		case reflect.SendDir:
			return "chan<- " + tn.typeString(t.Elem())
		}
		return "chan " + tn.typeString(t.Elem())
	case reflect.Struct:
		if t.NumField() == 0 {
			return "struct {}"
		}
		parts := make([]string, t.NumField())
		for i := range parts {
			f := t.Field(i)
			if f.Anonymous {
				parts[i] = tn.typeString(f.Type)
			} else {
				parts[i] = tn.fieldName(t, i) + " " + tn.typeString(f.Type)
			}
			if f.Tag != "" {
				parts[i] += " " + strconv.Quote(string(f.Tag))
			}
		}
		return "struct { " + strings.Join(parts, "; ") + " }"
	}
	return t.String()
}

// goFormatter prints a value as fmt would print the Go value for %+v and
// %#v, with Go's type and field names.
type goFormatter struct {
	tn *typeNames
	v  reflect.Value
}

func (g goFormatter) Format(f fmt.State, verb rune) {
	var b bytes.Buffer
	g.tn.print(&b, g.v, f.Flag('#'), 0)
	// Width and the - flag apply to the whole text, as fmt applies them
	// to each operand... of a struct they apply to each field; keep it
	// simple and pad the whole.
	s := b.String()
	if w, ok := f.Width(); ok && len(s) < w {
		pad := strings.Repeat(" ", w-len(s))
		if f.Flag('-') {
			s += pad
		} else {
			s = pad + s
		}
	}
	io.WriteString(f, s)
}

// print writes v as fmt's %+v (sharp false) or %#v (sharp true).
func (tn *typeNames) print(b *bytes.Buffer, v reflect.Value, sharp bool, depth int) {
	verb := "%+v"
	if sharp {
		verb = "%#v"
	}
	if !v.IsValid() {
		if depth == 0 {
			b.WriteString("<invalid reflect.Value>")
		} else if sharp {
			b.WriteString("interface {}(nil)")
		} else {
			b.WriteString("<nil>")
		}
		return
	}
	t := v.Type()
	if !tn.needs(t) || (v.CanInterface() && implementsFmt(v, sharp)) {
		if v.CanInterface() {
			fmt.Fprintf(b, verb, v.Interface())
		} else {
			fmt.Fprintf(b, verb, v)
		}
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			if sharp {
				b.WriteString(tn.typeString(t) + "(nil)")
			} else {
				b.WriteString("<nil>")
			}
			return
		}
		tn.print(b, v.Elem(), sharp, depth)
	case reflect.Struct:
		if sharp {
			b.WriteString(tn.typeString(t))
		}
		b.WriteByte('{')
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).Type == emptyTagType {
				continue // the only field, added by the session (internal/rewrite/rewrite_tags.go)
			}
			if i > 0 {
				if sharp {
					b.WriteString(", ")
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString(tn.fieldName(t, i) + ":")
			tn.print(b, v.Field(i), sharp, depth+1)
		}
		b.WriteByte('}')
	case reflect.Pointer:
		if v.IsNil() {
			if sharp {
				b.WriteString("(" + tn.typeString(t) + ")(nil)")
			} else {
				b.WriteString("<nil>")
			}
			return
		}
		if depth == 0 {
			switch v.Elem().Kind() {
			case reflect.Struct, reflect.Array, reflect.Slice, reflect.Map:
				b.WriteByte('&')
				tn.print(b, v.Elem(), sharp, depth+1)
				return
			}
		}
		if sharp {
			fmt.Fprintf(b, "(%s)(%p)", tn.typeString(t), v.Interface())
		} else {
			fmt.Fprintf(b, "%p", v.Interface())
		}
	case reflect.Slice, reflect.Array:
		if sharp {
			if v.Kind() == reflect.Slice && v.IsNil() {
				b.WriteString(tn.typeString(t) + "(nil)")
				return
			}
			b.WriteString(tn.typeString(t) + "{")
		} else {
			b.WriteByte('[')
		}
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				if sharp {
					b.WriteString(", ")
				} else {
					b.WriteByte(' ')
				}
			}
			tn.print(b, v.Index(i), sharp, depth+1)
		}
		if sharp {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	case reflect.Map:
		if sharp {
			if v.IsNil() {
				b.WriteString(tn.typeString(t) + "(nil)")
				return
			}
			b.WriteString(tn.typeString(t) + "{")
		} else {
			b.WriteString("map[")
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return compareValues(keys[i], keys[j]) < 0 })
		for i, k := range keys {
			if i > 0 {
				if sharp {
					b.WriteString(", ")
				} else {
					b.WriteByte(' ')
				}
			}
			tn.print(b, k, sharp, depth+1)
			b.WriteByte(':')
			tn.print(b, v.MapIndex(k), sharp, depth+1)
		}
		if sharp {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	default:
		if v.CanInterface() {
			fmt.Fprintf(b, verb, v.Interface())
		} else {
			fmt.Fprintf(b, verb, v)
		}
	}
}

// isFormatter reports whether a is a fmt.Formatter.
func isFormatter(a any) bool {
	_, ok := a.(fmt.Formatter)
	return ok
}

// implementsFmt reports whether fmt would print v by a method: Formatter,
// GoStringer for %#v, error or Stringer for %+v.
func implementsFmt(v reflect.Value, sharp bool) bool {
	switch v.Interface().(type) {
	case fmt.Formatter:
		return true
	case fmt.GoStringer:
		return sharp
	case error, fmt.Stringer:
		return !sharp
	}
	return false
}

// compareValues orders map keys as fmt does for the kinds that keys have.
func compareValues(a, b reflect.Value) int {
	if a.Kind() != b.Kind() {
		return int(a.Kind()) - int(b.Kind())
	}
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmpOrdered(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmpOrdered(a.Uint(), b.Uint())
	case reflect.String:
		return strings.Compare(a.String(), b.String())
	case reflect.Float32, reflect.Float64:
		return cmpOrdered(a.Float(), b.Float())
	case reflect.Bool:
		switch {
		case a.Bool() == b.Bool():
			return 0
		case !a.Bool():
			return -1
		}
		return 1
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if c := compareValues(a.Field(i), b.Field(i)); c != 0 {
				return c
			}
		}
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			if c := compareValues(a.Index(i), b.Index(i)); c != 0 {
				return c
			}
		}
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return cmpOrdered(boolInt(!a.IsNil()), boolInt(!b.IsNil()))
		}
		return compareValues(a.Elem(), b.Elem())
	}
	return 0
}

func cmpOrdered[T int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// namedValue is an argument of a named non-struct type of the session
// (type ID int), whose reflect type is its underlying type: the session
// passes its Go name beside it (internal/rewrite/rewrite_fmt.go) for %T and %#v.
type namedValue struct {
	name string // main.ID, []main.ID
	v    any
}

// goSyntax is %#v of the value: fmt's, with the type's Go name in place
// of its underlying type.
func (nv namedValue) goSyntax() string {
	s := fmt.Sprintf("%#v", nv.v)
	if t := reflect.TypeOf(nv.v); t != nil {
		if rest, ok := strings.CutPrefix(s, t.String()); ok {
			return nv.name + rest
		}
	}
	return s
}

// isWrapper reports whether t is the type of a yaegi interface wrapper (a
// struct whose first field IValue holds the value, then methods).
func isWrapper(t reflect.Type) bool {
	return t != nil && t.Kind() == reflect.Struct && t.NumField() > 1 && t.Field(0).Name == "IValue" && t.Field(0).Type.Kind() == reflect.Interface && t.Field(1).Type.Kind() == reflect.Func
}

func hasWrapper(args []any) bool {
	for _, a := range args {
		if isWrapper(reflect.TypeOf(a)) {
			return true
		}
	}
	return false
}

// fixArgs returns the arguments of a call with format, those printed by
// %T, %+v or %#v replaced where their types hold interpreted structs.
func (tn *typeNames) fixArgs(format string, args []any) (string, []any) {
	if !strings.ContainsAny(format, "+#T") && !hasWrapper(args) {
		return format, args
	}
	var out []any
	var fb []byte
	set := func(k int, v any) {
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[k] = v
	}
	argNum := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		plus, sharp := false, false
	flags:
		for ; i < len(format); i++ {
			switch format[i] {
			case '+':
				plus = true
			case '#':
				sharp = true
			case '-', ' ', '0':
			default:
				break flags
			}
		}
		// Argument indexes, widths and precisions.
		for i < len(format) {
			c := format[i]
			switch {
			case c == '[':
				j := strings.IndexByte(format[i:], ']')
				if j < 0 {
					return format, args
				}
				n, err := strconv.Atoi(format[i+1 : i+j])
				if err != nil {
					return format, args
				}
				argNum = n - 1
				i += j + 1
				continue
			case c == '*':
				argNum++
			case c == '.' || ('0' <= c && c <= '9'):
			default:
				goto verb
			}
			i++
		}
	verb:
		if i >= len(format) {
			break
		}
		c := format[i]
		if c == '%' {
			continue
		}
		if argNum < 0 || argNum >= len(args) {
			argNum++
			continue
		}
		a := args[argNum]
		if g, ok := a.(interface{ goName() string }); ok && c == 'T' {
			// An operand of fmtoperand.go.
			set(argNum, g.goName())
			if fb == nil {
				fb = []byte(format)
			}
			fb[i] = 's'
			argNum++
			continue
		}
		if mv, ok := a.(methodValue); ok && c == 'T' {
			set(argNum, tn.typeString(reflect.TypeOf(mv.v)))
			if fb == nil {
				fb = []byte(format)
			}
			fb[i] = 's'
			argNum++
			continue
		}
		if nv, ok := a.(namedValue); ok {
			switch {
			case c == 'T':
				set(argNum, nv.name)
			case c == 'v' && sharp:
				set(argNum, nv.goSyntax())
			default:
				set(argNum, nv.v)
				argNum++
				continue
			}
			if fb == nil {
				fb = []byte(format)
			}
			fb[i] = 's'
			argNum++
			continue
		}
		switch {
		case !strings.ContainsRune("vsqxXTw", rune(c)) && isWrapper(reflect.TypeOf(a)) && !isFormatter(a):
			// %d of an interpreted Stringer is of its value, not of
			// yaegi's wrapper; a Formatter's Format prints every verb.
			set(argNum, unwrapped(reflect.ValueOf(a)).Interface())
		case c == 'T' && a != nil && tn.ivals != nil && tn.ivals.wrappedName(a) != "":
			// A value of a named non-struct type of the session in
			// yaegi's wrapper (ifacevalue.go).
			set(argNum, tn.ivals.wrappedName(a))
			if fb == nil {
				fb = []byte(format)
			}
			fb[i] = 's'
		case c == 'T' && a != nil && tn.needs(reflect.TypeOf(a)):
			set(argNum, tn.typeString(reflect.TypeOf(a)))
			if fb == nil {
				fb = []byte(format)
			}
			fb[i] = 's'
		case c == 'v' && (plus || sharp) && a != nil && tn.needs(reflect.TypeOf(a)):
			set(argNum, goFormatter{tn, reflect.ValueOf(a)})
		}
		argNum++
	}
	if fb != nil {
		format = string(fb)
	}
	if out == nil {
		return format, args
	}
	return format, out
}

// fmtSymbols are the wrapped fmt functions, printing to stdout. They are
// loaded under the key "fmt/./fmt" (yaegi's Use takes the package path
// and name with path.Dir and path.Base): the key "fmt/fmt" would have Use
// reload the standard library's fixes and generic sources. Interpreted
// values passed to them are wrapped for the same interfaces as for fmt's
// own functions (yaegi's MapTypes), so that String and Error methods are
// still seen.
func (tn *typeNames) fmtSymbols(stdout io.Writer) yaegi.Exports {
	fns := map[string]reflect.Value{
		"Print": reflect.ValueOf(func(a ...any) (int, error) {
			return fmt.Fprint(stdout, printSpaced(tn.printArgs(a))...)
		}),
		"Println": reflect.ValueOf(func(a ...any) (int, error) {
			return fmt.Fprintln(stdout, tn.printArgs(a)...)
		}),
		"Sprint": reflect.ValueOf(func(a ...any) string {
			return fmt.Sprint(printSpaced(tn.printArgs(a))...)
		}),
		"Sprintln": reflect.ValueOf(func(a ...any) string {
			return fmt.Sprintln(tn.printArgs(a)...)
		}),
		"Fprint": reflect.ValueOf(func(w io.Writer, a ...any) (int, error) {
			return fmt.Fprint(w, printSpaced(tn.printArgs(a))...)
		}),
		"Fprintln": reflect.ValueOf(func(w io.Writer, a ...any) (int, error) {
			return fmt.Fprintln(w, tn.printArgs(a)...)
		}),
		"Append": reflect.ValueOf(func(b []byte, a ...any) []byte {
			return fmt.Append(b, printSpaced(tn.printArgs(a))...)
		}),
		"Appendln": reflect.ValueOf(func(b []byte, a ...any) []byte {
			return fmt.Appendln(b, tn.printArgs(a)...)
		}),
		"Printf": reflect.ValueOf(func(format string, a ...any) (int, error) {
			format, a = tn.fixArgs(format, tn.printArgs(a))
			return fmt.Fprintf(stdout, format, a...)
		}),
		"Sprintf": reflect.ValueOf(func(format string, a ...any) string {
			format, a = tn.fixArgs(format, tn.printArgs(a))
			return fmt.Sprintf(format, a...)
		}),
		"Fprintf": reflect.ValueOf(func(w io.Writer, format string, a ...any) (int, error) {
			format, a = tn.fixArgs(format, tn.printArgs(a))
			return fmt.Fprintf(w, format, a...)
		}),
		"Errorf": reflect.ValueOf(func(format string, a ...any) error {
			format, a = tn.fixArgs(format, tn.errorfArgs(a)) // fmtany.go
			return fmt.Errorf(format, a...)
		}),
		"Appendf": reflect.ValueOf(func(b []byte, format string, a ...any) []byte {
			format, a = tn.fixArgs(format, tn.printArgs(a))
			return fmt.Appendf(b, format, a...)
		}),
	}
	mt := map[reflect.Value][]reflect.Type{}
	for name, orig := range map[string]any{"Print": fmt.Print, "Println": fmt.Println, "Sprint": fmt.Sprint, "Sprintln": fmt.Sprintln, "Fprint": fmt.Fprint, "Fprintln": fmt.Fprintln, "Append": fmt.Append, "Appendln": fmt.Appendln, "Printf": fmt.Printf, "Sprintf": fmt.Sprintf, "Fprintf": fmt.Fprintf, "Errorf": fmt.Errorf, "Appendf": fmt.Appendf} {
		if ts, ok := stdlib.MapTypes[reflect.ValueOf(orig)]; ok {
			mt[fns[name]] = ts
		}
	}
	return yaegi.Exports{"fmt/./fmt": fns, ".": {"MapTypes": reflect.ValueOf(mt)}}
}

// printMapTypes has the printing functions of fmt and log wrap the
// interpreted values passed to them for fmt.Formatter, error and
// fmt.Stringer, in the order fmt looks for these methods. yaegi's
// MapTypes listed only Formatter and Stringer: an interpreted error type
// passed to fmt.Println printed its fields, not its Error method.
func printMapTypes(i *yaegi.Interpreter) yaegi.Exports {
	ts := []reflect.Type{
		reflect.TypeFor[fmt.Formatter](),
		reflect.TypeFor[error](),
		reflect.TypeFor[fmt.Stringer](),
	}
	mt := map[reflect.Value][]reflect.Type{}
	for pkg, names := range map[string][]string{
		"fmt": {"Append", "Appendf", "Appendln", "Errorf", "Fprint", "Fprintf", "Fprintln", "Print", "Printf", "Println", "Sprint", "Sprintf", "Sprintln"},
		"log": {"Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln", "Print", "Printf", "Println"},
	} {
		syms := i.Symbols(pkg)[pkg]
		for _, name := range names {
			if v, ok := syms[name]; ok && v.Kind() == reflect.Func {
				mt[v] = ts
			}
		}
	}
	return yaegi.Exports{".": {"MapTypes": reflect.ValueOf(mt)}}
}
