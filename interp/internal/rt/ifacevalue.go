package rt

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// Values of interpreted types in an interface{}.
//
// yaegi keeps a value of an interpreted type in an empty interface in one
// of two forms: its own wrapper, interp.valueInterface, which holds the
// value and a node of its interpreted type (a call argument of type any,
// f(codeErr{1}), gets it), or the bare value (var a any = codeErr{1}, a
// recovered panic value), whose reflect type has no methods. Its type
// switch on an empty interface compared the names of reflect types, which
// matched neither the wrapper (case codeErr failed) nor a method set
// (case error failed); its assertions to an interface see the methods of
// the wrapper only, and an assertion to a compiled interface with a
// result built the method wrappers by evaluating the wrapper's node in
// the current frame, the caller's node in the callee's frame (a wrong
// value, or reflect: Method on nil interface value).
//
// So the session registers, for each struct type of a cell with methods
// and for its pointer, its method set and interpreted functions that take
// a bare value of the type and return it as yaegi's wrapper, as an error
// and as a fmt.Stringer, each converted inside the function, where the
// node is right (ifaceValues, filled by methodTypes' calls). Compiled code
// sees yaegi's wrapper as the struct it is, and reads the bare value out
// of it (bareValue). A type switch on an empty interface or an error then
// becomes a chain of assertions (internal/rewrite/rewrite_typeswitch.go): case error and
// case fmt.Stringer call AsError and AsStringer, cases of interfaces of
// the session ask HasMethods and bind the value that __gnnlab_iface
// rewraps, and recovered panic values are rewrapped. The printing
// functions of fmt print such values by their methods (printArgs), and a
// struct value that becomes an error keeps the value (structError). A
// named type of another kind (type level int) has its underlying reflect
// type, so its bare values cannot be told from those of that type, and
// they stay as they are; its values in yaegi's wrapper are left to yaegi,
// but for assertions to the underlying type (Wrapped).

// ifaceFuncs are the interpreted conversions of a bare value of one type.
type ifaceFuncs struct {
	methods map[string]bool        // the type's method set, by name
	wrap    func(any) any          // yaegi's wrapper, with the type's methods; nil without methods
	err     func(any) error        // nil unless the type is an error
	str     func(any) fmt.Stringer // nil unless the type is a fmt.Stringer
}

// ifaceValues maps the reflect types of the cells' struct types with
// methods, and of pointers to them, to their conversions.
type ifaceValues struct {
	mu    sync.RWMutex
	m     map[reflect.Type]ifaceFuncs
	named map[reflect.Type][]string // names of the non-struct types with methods, by underlying type
	names *typeNames                // the session's, for type names in panics
}

// registerNamed records name (main.level) as a named non-struct type with
// methods whose reflect type is ptr's element type.
func (iv *ifaceValues) registerNamed(name string, ptr any) {
	t := reflect.TypeOf(ptr)
	if t == nil || t.Kind() != reflect.Pointer {
		return
	}
	iv.mu.Lock()
	defer iv.mu.Unlock()
	if iv.named == nil {
		iv.named = map[reflect.Type][]string{}
	}
	if !slices.Contains(iv.named[t.Elem()], name) {
		iv.named[t.Elem()] = append(iv.named[t.Elem()], name)
	}
}

// wrappedName returns the Go name of the type of a value in one of
// yaegi's wrappers (valueInterface, or a wrapper for a compiled
// interface), which hold values of interpreted types only, when its
// reflect type is that of one named non-struct type of the session with
// methods, else "".
func (iv *ifaceValues) wrappedName(a any) string {
	t := reflect.TypeOf(a)
	var inner reflect.Type
	switch {
	case isValueInterface(t):
		if b := bareValue(a); b != nil {
			inner = reflect.TypeOf(b)
		}
	case isWrapper(t):
		if v := unwrapped(reflect.ValueOf(a)); v.IsValid() {
			inner = v.Type()
		}
	}
	if inner == nil {
		return ""
	}
	iv.mu.RLock()
	defer iv.mu.RUnlock()
	if ns := iv.named[inner]; len(ns) == 1 {
		return ns[0]
	}
	return ""
}

// register records the method set (names separated by commas) and the
// conversions of the struct type that ptr points to (pointer false) or of
// the pointer type (pointer true). Other kinds of types are ignored.
func (iv *ifaceValues) register(ptr any, pointer bool, methods string, wrap func(any) any, err func(any) error, str func(any) fmt.Stringer) {
	t := reflect.TypeOf(ptr)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return
	}
	if !pointer {
		t = t.Elem()
	}
	iv.mu.Lock()
	defer iv.mu.Unlock()
	if iv.m == nil {
		iv.m = map[reflect.Type]ifaceFuncs{}
	}
	ms := map[string]bool{}
	for _, m := range strings.Split(methods, ",") {
		if m != "" {
			ms[m] = true
		}
	}
	iv.m[t] = ifaceFuncs{ms, wrap, err, str}
}

func (iv *ifaceValues) lookup(v any) ifaceFuncs {
	iv.mu.RLock()
	defer iv.mu.RUnlock()
	return iv.m[reflect.TypeOf(v)]
}

// rewrap returns yaegi's wrapper of v and true when v is a bare value of a
// registered type.
func (iv *ifaceValues) rewrap(v any) (any, bool) {
	if v == nil {
		return nil, false
	}
	if se, ok := v.(structError); ok {
		v = se.IValue
	}
	v = wrappedPointer(v) // ifaceassert.go
	if f := iv.lookup(v).wrap; f != nil {
		return f(v), true
	}
	return v, false
}

// hasMethods reports whether the value v, bare or in yaegi's wrapper, has
// the methods of names: 1 yes, 0 no, -1 not known here (a value of a
// named type of the session that is not a struct, whose reflect type is
// its underlying type). Values of compiled named types are answered by
// reflect.
func (iv *ifaceValues) hasMethods(v any, names ...string) int {
	v = wrappedPointer(bareValue(v))
	if v == nil {
		return 0
	}
	f, ok := iv.known(v)
	if !ok {
		t := reflect.TypeOf(v)
		elem := t
		if elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		if elem.PkgPath() == "" {
			return -1
		}
		for _, n := range names {
			if _, ok := t.MethodByName(n); !ok {
				return 0
			}
		}
		return 1
	}
	for _, n := range names {
		if !f.methods[n] {
			return 0
		}
	}
	return 1
}

// conversion is the panic value of a failed v.(I), I an interface of the
// session named iface with the methods of names.
func (iv *ifaceValues) conversion(v any, iface string, names ...string) error {
	missing := ""
	if f, ok := iv.known(wrappedPointer(bareValue(v))); ok {
		for _, n := range names {
			if !f.methods[n] {
				missing = n
				break
			}
		}
	}
	if missing == "" && len(names) > 0 {
		missing = names[0]
	}
	return iv.conversionError(v, iface, missing)
}

func (iv *ifaceValues) known(v any) (ifaceFuncs, bool) {
	iv.mu.RLock()
	defer iv.mu.RUnlock()
	f, ok := iv.m[reflect.TypeOf(v)]
	return f, ok
}

// asError is v.(error) for a v that may be a value of an interpreted
// type, bare or in yaegi's wrapper.
func (iv *ifaceValues) asError(v any) (error, bool) {
	if se, ok := v.(structError); ok {
		return se, true
	}
	v = bareValue(v)
	if f := iv.lookup(v).err; f != nil {
		return structErr(v, f(v)), true
	}
	e, ok := v.(error)
	return e, ok
}

// asStringer is v.(fmt.Stringer), as asError.
func (iv *ifaceValues) asStringer(v any) (fmt.Stringer, bool) {
	v = bareValue(v)
	if f := iv.lookup(v).str; f != nil {
		return f(v), true
	}
	s, ok := v.(fmt.Stringer)
	return s, ok
}

// mustError is v.(error): it panics as Go does when v is not an error.
func (iv *ifaceValues) mustError(v any) error {
	e, ok := iv.asError(v)
	if !ok {
		panic(iv.conversionError(v, "error", "Error"))
	}
	return e
}

// mustStringer is v.(fmt.Stringer), as mustError.
func (iv *ifaceValues) mustStringer(v any) fmt.Stringer {
	s, ok := iv.asStringer(v)
	if !ok {
		panic(iv.conversionError(v, "fmt.Stringer", "String"))
	}
	return s
}

// conversionError is the panic value of a failed v.(iface), whose first
// missing method is method.
func (iv *ifaceValues) conversionError(v any, iface, method string) error {
	v = bareValue(v)
	if v == nil {
		return typeAssertionError("interface conversion: interface is nil, not " + iface)
	}
	return typeAssertionError("interface conversion: " + iv.typeName(v) + " is not " + iface + ": missing method " + method)
}

// typeName is the Go name of v's type where the session registered it
// (main.T, *main.T), else its reflect type.
func (iv *ifaceValues) typeName(v any) string {
	t := reflect.TypeOf(v)
	star := ""
	if t.Kind() == reflect.Pointer {
		star, t = "*", t.Elem()
	}
	if iv.names != nil {
		if nt, ok := iv.names.lookup(t); ok {
			return star + nt.name
		}
	}
	return reflect.TypeOf(v).String()
}

// typeAssertionError is the panic value of a failed assertion, a
// runtime.Error as Go's *runtime.TypeAssertionError is.
type typeAssertionError string

func (e typeAssertionError) Error() string { return string(e) }
func (typeAssertionError) RuntimeError()   {}

// recovered is the value of recover() in a cell (internal/rewrite/rewrite.go): yaegi's
// recover returned the panic value as a reflect.Value, and a value of an
// interpreted type bare.
func (iv *ifaceValues) recovered(v any) any {
	v = recovered(v)
	if isWrapper(reflect.TypeOf(v)) {
		return v // a compiled interface's (panic(err)): its methods are the value's
	}
	if w, ok := iv.rewrap(v); ok {
		return w
	}
	return v
}

var reflectValueType = reflect.TypeFor[reflect.Value]()

// notType is the panic value of x.(T) where x holds yaegi's wrapper of a
// value of a type of the session named name.
func notType(name, t string) error {
	return typeAssertionError("interface conversion: interface {} is " + name + ", not " + t)
}

// wrapped reports whether v is yaegi's wrapper valueInterface, which
// holds a value of an interpreted type.
func wrapped(v any) bool { return isValueInterface(reflect.TypeOf(v)) }

// isValueInterface reports whether t is yaegi's wrapper valueInterface.
func isValueInterface(t reflect.Type) bool {
	return t != nil && t.Kind() == reflect.Struct && t.Name() == "valueInterface" && t.PkgPath() == "github.com/traefik/yaegi/interp" &&
		t.NumField() == 2 && t.Field(1).Type == reflectValueType
}

// bareValue is v without yaegi's wrapper (a struct valueInterface whose
// second field is the value, as a reflect.Value, read through unsafe since
// the field is unexported).
func bareValue(v any) any {
	for v != nil {
		rv := reflect.ValueOf(v)
		t := rv.Type()
		if se, ok := v.(structError); ok {
			v = se.IValue
			continue
		}
		if !isValueInterface(t) {
			return v
		}
		c := reflect.New(t).Elem()
		c.Set(rv)
		inner := *(*reflect.Value)(unsafe.Pointer(c.Field(1).UnsafeAddr()))
		if !inner.IsValid() || !inner.CanInterface() {
			return nil
		}
		v = inner.Interface()
	}
	return nil
}

// printArgs returns the arguments of a printing function of fmt with the
// values of the session's types in yaegi's wrapper made their fmt
// operands (fmtany.go), those of struct types that have an Error or
// String method, bare, made methodValues, and the other values out of
// yaegi's wrapper; the interfaces inside an argument too (a []any, a
// map[string]any: operandsIn). args is returned as it is when nothing
// changes (and before any such type is declared).
func (tn *typeNames) printArgs(args []any) []any {
	iv := tn.ivals
	if iv == nil || !iv.any() && !tn.anys.any() {
		return args
	}
	var out []any
	for k, a := range args {
		b, changed := tn.topOperand(a) // fmtany.go
		if changed || out != nil {
			if out == nil {
				out = append([]any(nil), args[:k]...)
			}
			out = append(out, b)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// printArg is a as printArgs passes it, and whether that is not a.
func (tn *typeNames) printArg(a any) (any, bool) {
	if o, ok := tn.anyOperand(a); ok { // fmtany.go
		return o, true
	}
	b := bareValue(a)
	if b == nil {
		return a, false
	}
	if isWrapper(reflect.TypeOf(b)) {
		// yaegi's wrapper for a compiled interface (errwrap.go): of a
		// pointer it holds the pointer (of a struct its last field).
		if v := unwrapped(reflect.ValueOf(b)); v.Kind() == reflect.Pointer && v.CanInterface() {
			if f, ok := tn.ivals.known(v.Interface()); ok && (f.err != nil || f.str != nil) {
				return methodValue{v.Interface(), f, tn}, true
			}
		}
		return a, false
	}
	if f, ok := tn.ivals.known(b); ok && (f.err != nil || f.str != nil) {
		return methodValue{b, f, tn}, true
	}
	if c, ok := tn.operandsIn(reflect.ValueOf(b), 1); ok { // fmtany.go
		return c.Interface(), true
	}
	return b, isValueInterface(reflect.TypeOf(a))
}

func (iv *ifaceValues) any() bool {
	iv.mu.RLock()
	defer iv.mu.RUnlock()
	return len(iv.m) > 0
}

// methodValue prints a value of a session's type with an Error or String
// method as fmt prints the Go value: the verbs that call these methods
// print the result of Error (or else String), %#v the Go syntax, the
// others the value (%d of a struct: its fields).
type methodValue struct {
	v  any
	f  ifaceFuncs
	tn *typeNames
}

func (m methodValue) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		goFormatter{m.tn, reflect.ValueOf(m.v)}.Format(f, verb)
	case strings.ContainsRune("vsqxX", verb):
		if m.f.err != nil {
			fmt.Fprintf(f, fmt.FormatString(f, verb), m.f.err(m.v).Error())
		} else {
			fmt.Fprintf(f, fmt.FormatString(f, verb), m.f.str(m.v).String())
		}
	default:
		fmt.Fprintf(f, fmt.FormatString(f, verb), m.v)
	}
}

// printOperand is an argument of a printing function of fmt of static
// type any, or a struct type of the session (or a pointer to one) with an
// Error or String method (internal/rewrite/rewrite_typeswitch.go's printAnyArgs): a value
// of a registered type, bare or in yaegi's wrapper, becomes what
// printArgs passes for it. So yaegi does not wrap it for fmt's
// interfaces: it built the method wrappers of its own wrapper from the
// wrapper's node evaluated in the current frame (a node of the caller:
// reflect: call of reflect.Value.Interface on zero Value), and %T printed
// its wrapper's type. Other values are returned as they are.
func (tn *typeNames) printOperand(v any) any {
	if v == nil || tn.ivals == nil {
		return v
	}
	if o, ok := tn.anyOperand(v); ok { // fmtany.go
		return o
	}
	b := bareValue(v)
	if _, ok := tn.ivals.known(b); !ok {
		return v
	}
	p, _ := tn.printArg(v)
	return p
}

// errorfOperand is printOperand for fmt.Errorf, whose %w needs an error
// (and errors.Is and errors.As the value in it): yaegi's wrapper of a
// value of a struct type of the session becomes the value as an error, or
// else as a fmt.Stringer, or else bare.
func (tn *typeNames) errorfOperand(v any) any {
	if !isValueInterface(reflect.TypeOf(v)) || tn.ivals == nil {
		return v
	}
	if e, ok := tn.anyError(v); ok { // fmtany.go
		return e
	}
	b := bareValue(v)
	f, ok := tn.ivals.known(b)
	switch {
	case !ok:
		return v
	case f.err != nil:
		return structErr(b, f.err(b))
	case f.str != nil:
		return f.str(b)
	}
	return b
}

// structError is a value of a struct type of the session as an error
// (StructError): yaegi's error wrapper of a struct value held its last
// field, not the value (getConcreteValue), so err.(T), a type switch's
// case T, errors.As with a *T target and err == T{...} missed it. Its
// first field is named IValue as yaegi's wrappers' is, which yaegi's
// assertions and unwrapped look through; err is yaegi's wrapper, whose
// methods are the value's.
type structError struct {
	IValue any
	err    error
}

func (e structError) Error() string { return e.err.Error() }

// Unwrap, Is and As are the value's where it has them.
func (e structError) Unwrap() error {
	if u, ok := e.err.(interface{ Unwrap() error }); ok {
		return u.Unwrap()
	}
	return nil
}

func (e structError) Is(target error) bool {
	if x, ok := e.err.(interface{ Is(error) bool }); ok {
		return x.Is(target)
	}
	return false
}

func (e structError) As(target any) bool {
	if x, ok := e.err.(interface{ As(any) bool }); ok {
		return x.As(target)
	}
	return false
}

// structErr is v, a value of a struct type of the session that
// implements error, as an error (internal/rewrite/rewrite_typeswitch.go's structToError):
// a structError of v and e, yaegi's conversion of v to error. yaegi gives
// v bare.
func structErr(v any, e error) error {
	if v == nil || e == nil || reflect.TypeOf(v).Kind() != reflect.Struct {
		return e
	}
	return structError{v, e}
}
