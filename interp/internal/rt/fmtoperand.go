package rt

import (
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Operands of fmt by their static types.
//
// yaegi's values of the session's types reach fmt without the methods Go
// would see (ifacevalue.go): a named type of another kind than struct (type
// Suit int) has its underlying reflect type, so fmt printed the number of a
// map key or struct field of type Suit; a Stringer in a map or a struct
// field printed bare; yaegi wrapped a value for fmt.Stringer when only its
// pointer had String (type listFlag []string with func (l *listFlag)
// String()), and it never called GoString nor the String method of a nil
// pointer. An argument of a printing function of fmt whose static type is,
// or holds in a slice, array, map, struct field or pointed-to value, a type
// of the session with a method fmt looks for (or whose pointer has one) is
// rewritten (internal/rewrite/rewrite_fmt.go) to a compiled value made from the static type:
// fmtOperand for a value of such a type, with closures that call its
// methods in the cell, fmtList for a slice or array, fmtMap for a map,
// fmtStruct for a struct, fmtPtr for a pointer. Their Format methods print
// as fmt prints the Go value: Format for every verb, GoString for %#v,
// Error or else String for %v %s %q %x %X, the value itself otherwise, a
// panic of a method as fmt reports it (<nil> for a nil receiver). A call
// with several results passed alone (fmt.Println(two())) gives each result
// its operand.

// fmtOperand is a value of a type of the session with the methods of the
// type's method set that fmt looks for; nil where the set lacks one.
type fmtOperand struct {
	tn       *typeNames
	name     string // the Go name of the type, main.Suit or *main.Tree
	v        any    // the value, bare
	format   func(fmt.State, rune)
	goString func() string
	errorS   func() string
	str      func() string
}

// goName is the name of the operand's static type for %T.
func (o fmtOperand) goName() string { return o.name }

// operand is the compiled side of the rewrite: a fmtOperand of v.
func (tn *typeNames) operand(name string, v any, format func(fmt.State, rune), goString, errorS, str func() string) any {
	return fmtOperand{tn, name, bareValue(v), format, goString, errorS, str}
}

func (o fmtOperand) Format(f fmt.State, verb rune) {
	sharpV := verb == 'v' && f.Flag('#')
	switch {
	case o.format != nil:
		defer o.catch(f, verb, "Format")
		o.format(f, verb)
	case sharpV && o.goString != nil:
		defer o.catch(f, verb, "GoString")
		writePadded(f, o.goString())
	case !sharpV && o.errorS != nil && strings.ContainsRune("vsxXq", verb):
		defer o.catch(f, verb, "Error")
		fmt.Fprintf(f, fmt.FormatString(f, verb), o.errorS())
	case !sharpV && o.str != nil && strings.ContainsRune("vsxXq", verb):
		defer o.catch(f, verb, "String")
		fmt.Fprintf(f, fmt.FormatString(f, verb), o.str())
	default:
		o.tn.formatRaw(f, verb, o.name, o.v)
	}
}

// catch reports a panic of the method as fmt does: <nil> for a nil
// receiver, else %!v(PANIC=String method: the value).
func (o fmtOperand) catch(f fmt.State, verb rune, method string) {
	p := recover()
	if p == nil {
		return
	}
	if rv := reflect.ValueOf(o.v); o.v == nil || rv.Kind() == reflect.Pointer && rv.IsNil() {
		writePadded(f, "<nil>")
		return
	}
	fmt.Fprintf(f, "%%!%c(PANIC=%s method: %v)", verb, method, p)
}

// writePadded writes s with f's width and precision, as fmt's %s.
func writePadded(f fmt.State, s string) {
	format := "%"
	if f.Flag('-') {
		format += "-"
	}
	if w, ok := f.Width(); ok {
		format += strconv.Itoa(w)
	}
	if p, ok := f.Precision(); ok {
		format += "." + strconv.Itoa(p)
	}
	fmt.Fprintf(f, format+"s", s)
}

// formatRaw prints v, a bare value of the type named name, as fmt prints
// the value without its methods: %+v and %#v with Go's type and field
// names.
func (tn *typeNames) formatRaw(f fmt.State, verb rune, name string, v any) {
	if verb == 'v' && (f.Flag('#') || f.Flag('+')) && v != nil && tn.needs(reflect.TypeOf(v)) {
		goFormatter{tn, reflect.ValueOf(v)}.Format(f, verb)
		return
	}
	if verb == 'v' && f.Flag('#') {
		writePadded(f, namedValue{name, v}.goSyntax())
		return
	}
	s := fmt.Sprintf(fmt.FormatString(f, verb), v)
	if t := reflect.TypeOf(v); t != nil && t.String() != name {
		// A wrong verb names the Go type: %!s(main.level=4).
		if rest, ok := strings.CutPrefix(s, "%!"+string(verb)+"("+t.String()+"="); ok {
			s = "%!" + string(verb) + "(" + name + "=" + rest
		}
	}
	io.WriteString(f, s)
}

// fmtList is a slice or array whose elements are operands (fmtOperand,
// fmtList, fmtMap).
type fmtList struct {
	name  string // []main.Suit
	isNil bool
	elems []any
}

func (l fmtList) goName() string { return l.name }

// list is the compiled side of the rewrite of a slice or array of n
// elements; at returns the operand of an element, or the element itself.
func (tn *typeNames) list(name string, isNil bool, n int, at func(int) any) any {
	l := fmtList{name: name, isNil: isNil, elems: make([]any, n)}
	for i := range l.elems {
		l.elems[i] = tn.elemOperand(at(i))
	}
	return l
}

func (l fmtList) Format(f fmt.State, verb rune) {
	format := fmt.FormatString(f, verb)
	if verb == 'v' && f.Flag('#') {
		if l.isNil {
			io.WriteString(f, l.name+"(nil)")
			return
		}
		io.WriteString(f, l.name+"{")
		for i, e := range l.elems {
			if i > 0 {
				io.WriteString(f, ", ")
			}
			printElem(f, format, verb, e)
		}
		io.WriteString(f, "}")
		return
	}
	io.WriteString(f, "[")
	for i, e := range l.elems {
		if i > 0 {
			io.WriteString(f, " ")
		}
		fmt.Fprintf(f, format, e)
	}
	io.WriteString(f, "]")
}

// fmtMap is a map whose keys or elements are operands, sorted by the
// keys' values as fmt sorts them.
type fmtMap struct {
	name    string // map[main.Suit]int
	isNil   bool
	entries []mapEntry
}

type mapEntry struct {
	raw        reflect.Value // the key, bare, for sorting
	key, value any
}

func (m fmtMap) goName() string { return m.name }

// mapOf is the compiled side of the rewrite of a map: each yields its
// entries, each key also as it is (raw) to sort by.
func (tn *typeNames) mapOf(name string, isNil bool, each func(yield func(raw, key, value any))) any {
	m := fmtMap{name: name, isNil: isNil}
	each(func(raw, key, value any) {
		m.entries = append(m.entries, mapEntry{reflect.ValueOf(bareValue(raw)), tn.elemOperand(key), tn.elemOperand(value)})
	})
	sort.SliceStable(m.entries, func(i, j int) bool { return compareValues(m.entries[i].raw, m.entries[j].raw) < 0 })
	return m
}

func (m fmtMap) Format(f fmt.State, verb rune) {
	format := fmt.FormatString(f, verb)
	sharpV := verb == 'v' && f.Flag('#')
	switch {
	case sharpV && m.isNil:
		io.WriteString(f, m.name+"(nil)")
		return
	case sharpV:
		io.WriteString(f, m.name+"{")
	default:
		io.WriteString(f, "map[")
	}
	for i, e := range m.entries {
		if i > 0 {
			if sharpV {
				io.WriteString(f, ", ")
			} else {
				io.WriteString(f, " ")
			}
		}
		printElem(f, format, verb, e.key)
		io.WriteString(f, ":")
		printElem(f, format, verb, e.value)
	}
	if sharpV {
		io.WriteString(f, "}")
	} else {
		io.WriteString(f, "]")
	}
}

// fmtStruct is a struct value whose exported fields hold operands.
type fmtStruct struct {
	tn     *typeNames
	name   string // main.P
	v      any    // the value, bare
	fields []string
	values []any
}

func (s fmtStruct) goName() string { return s.name }

// structOf is the compiled side of the rewrite of a struct value v: the
// names of its fields, separated by commas, and their values, operands
// for the exported fields that need one.
func (tn *typeNames) structOf(name string, v any, fields string, values []any) any {
	s := fmtStruct{tn, name, bareValue(v), strings.Split(fields, ","), make([]any, len(values))}
	for i, x := range values {
		s.values[i] = tn.elemOperand(x)
	}
	return s
}

func (s fmtStruct) Format(f fmt.State, verb rune) {
	format := fmt.FormatString(f, verb)
	sharpV := verb == 'v' && f.Flag('#')
	if sharpV {
		io.WriteString(f, s.goName())
	}
	io.WriteString(f, "{")
	for i, x := range s.values {
		if i > 0 {
			if sharpV {
				io.WriteString(f, ", ")
			} else {
				io.WriteString(f, " ")
			}
		}
		if sharpV || verb == 'v' && f.Flag('+') {
			io.WriteString(f, s.fields[i]+":")
		}
		printElem(f, format, verb, x)
	}
	io.WriteString(f, "}")
}

// elemOperand is x, an element of a slice, array, map or struct, as
// printArgs passes it (x may be an operand, which stays as it is).
func (tn *typeNames) elemOperand(x any) any {
	if tn.ivals == nil {
		return bareValue(x)
	}
	p, _ := tn.printArg(x)
	return p
}

// printElem prints an element of a value: as fmt prints an operand,
// except that a non-nil pointer without a method that fmt calls is its
// address, as fmt prints a pointer inside a value (a pointer to a struct
// operand is &{...}).
func printElem(f fmt.State, format string, verb rune, x any) {
	if p, ok := x.(fmtPtr); ok && !p.isNil {
		x = p.p
	}
	if rv := reflect.ValueOf(x); rv.Kind() == reflect.Pointer && !rv.IsNil() && verb == 'v' && !implementsFmt(rv, f.Flag('#')) {
		if f.Flag('#') {
			fmt.Fprintf(f, "(%s)(%p)", rv.Type(), x)
		} else {
			fmt.Fprintf(f, "%p", x)
		}
		return
	}
	fmt.Fprintf(f, format, x)
}

// printSpaced returns the arguments of Print, Sprint, Fprint or Append
// as one string when an operand of a value of a string kind is among
// them, with the spaces fmt puts between operands neither of which is a
// string: the operand is a struct to fmt.
func printSpaced(args []any) []any {
	found := false
	for _, a := range args {
		if o, ok := a.(fmtOperand); ok && o.v != nil && reflect.TypeOf(o.v).Kind() == reflect.String {
			found = true
			break
		}
	}
	if !found {
		return args
	}
	var b strings.Builder
	prev := false
	for i, a := range args {
		isString := a != nil && reflect.TypeOf(a).Kind() == reflect.String
		if o, ok := a.(fmtOperand); ok {
			isString = o.v != nil && reflect.TypeOf(o.v).Kind() == reflect.String
		}
		if i > 0 && !isString && !prev {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, a)
		prev = isString
	}
	return []any{b.String()}
}

// nilInterface is a nil element of an interface type (named so) of a
// value that the session prints (ifaceOrNil).
type nilInterface string

// ifaceOrNil is x, an element of the interface type named name, or a
// nilInterface for a nil x.
func ifaceOrNil(name string, x any) any {
	if x == nil {
		return nilInterface(name)
	}
	return x
}

func (n nilInterface) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		io.WriteString(f, string(n)+"(nil)")
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), nil)
}

// fmtPtr is a non-nil pointer to a struct, array, slice or map that holds
// operands: fmt prints it as & and the value it points to, inside a value
// as its address.
type fmtPtr struct {
	name  string // *main.P
	p     any    // the pointer, bare
	isNil bool
	elem  any // the operand of *p; nil for a nil p
}

func (p fmtPtr) goName() string { return p.name }

// ptr is the compiled side of the rewrite of a pointer p; elem returns
// the operand of *p, called when p is not nil.
func ptr(name string, p any, isNil bool, elem func() any) any {
	fp := fmtPtr{name: name, p: bareValue(p), isNil: isNil}
	if !isNil {
		fp.elem = elem()
	}
	return fp
}

func (p fmtPtr) Format(f fmt.State, verb rune) {
	switch {
	case p.isNil && verb == 'v' && f.Flag('#'):
		io.WriteString(f, "("+p.name+")(nil)")
	case p.isNil:
		fmt.Fprintf(f, fmt.FormatString(f, verb), nil)
	default:
		io.WriteString(f, "&")
		fmt.Fprintf(f, fmt.FormatString(f, verb), p.elem)
	}
}
