package rt

import (
	"reflect"
	"strings"
	"sync"
)

// Values of the session's types in an any, printed by fmt.
//
// A value of a type of the session passed as an any (describe(level(3)),
// []any{pt{1, 2}}) is yaegi's wrapper valueInterface, which holds the
// value and the node of the expression that made it, in the frame of the
// function that made it. Passed on to fmt from another function
// (func describe(v any) string { return fmt.Sprint(v) }), yaegi built
// the wrapper for fmt.Stringer by evaluating that node in the frame of
// the function that calls fmt: the wrong slot, so pt{1, 2} printed <nil>
// or crashed (reflect: call of reflect.Value.Interface on zero Value),
// and level(3) printed whatever the slot held. A value of a named type
// that is not a struct (type level int) has its underlying reflect type,
// so the session's struct-keyed conversions (ifacevalue.go) could not
// tell it from an int.
//
// yaegi's wrapper names the type, though: its node's type has the name
// and package yaegi gave it (read through reflect: yaegiLayout). So the
// session registers, for each named type of a cell of another kind than
// struct that has methods, and for each struct type T or *T whose method
// set or its pointer's has a method fmt looks for (anyTypes), an
// interpreted function taking the wrapper as an any and returning the fmt
// operand of its value (fmtConv's, fmtoperand.go), and, for a type of
// another kind than struct that implements error, one returning it as an
// error; __gnnlab_rt.PrintOperand and the printing functions of fmt
// (printArg) give fmt that operand in place of the wrapper, and
// ErrorfOperand the error (%w). A conversion is used only for values of
// the interpreter that registered it (a rebuild registers the fresh
// one's). Bare values (a recovered panic value, a pointer to a type of
// another kind than struct, a value of a type without methods) still
// cannot be told apart from their underlying type's.

// anyConv is what the session registered for one type.
type anyConv struct {
	interp  uintptr         // the yaegi interpreter of the type
	operand func(any) any   // the fmt operand of a value in yaegi's wrapper
	err     func(any) error // the value as an error; nil where none
}

// anyConvs are the registered conversions, by yaegi's name of the type
// in the package main (level, *pt).
type anyConvs struct {
	mu sync.RWMutex
	m  map[string]anyConv
}

// registerAny records the conversions of the type that yaegi names name,
// whose value sample (yaegi's wrapper of a zero value) tells the
// interpreter. err may be nil. A sample that is not yaegi's wrapper
// records nothing.
func (tn *typeNames) registerAny(name string, sample any, operand func(any) any, err func(any) error) {
	yname, in, ok := wrappedType(sample)
	if !ok || yname != name || operand == nil {
		return
	}
	tn.anys.mu.Lock()
	defer tn.anys.mu.Unlock()
	if tn.anys.m == nil {
		tn.anys.m = map[string]anyConv{}
	}
	tn.anys.m[name] = anyConv{in, operand, err}
}

func (c *anyConvs) any() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m) > 0
}

// lookup returns the conversions of the type of the value in yaegi's
// wrapper v, made by the interpreter that registered them.
func (c *anyConvs) lookup(v any) (anyConv, bool) {
	if !isValueInterface(reflect.TypeOf(v)) || !c.any() {
		return anyConv{}, false
	}
	name, in, ok := wrappedType(v)
	if !ok {
		return anyConv{}, false
	}
	c.mu.RLock()
	conv, ok := c.m[name]
	c.mu.RUnlock()
	return conv, ok && conv.interp == in
}

// anyOperand returns the fmt operand of v, yaegi's wrapper of a value of
// a registered type, and true; the conversion runs interpreted code, and
// a panic there (a conversion of an older interpreter) gives false.
func (tn *typeNames) anyOperand(v any) (o any, ok bool) {
	conv, found := tn.anys.lookup(v)
	if !found {
		return nil, false
	}
	defer func() {
		if recover() != nil {
			o, ok = nil, false
		}
	}()
	return conv.operand(v), true
}

// anyError is anyOperand for fmt.Errorf: the value as an error, for a
// registered type of another kind than struct that implements error.
func (tn *typeNames) anyError(v any) (e error, ok bool) {
	conv, found := tn.anys.lookup(v)
	if !found || conv.err == nil {
		return nil, false
	}
	defer func() {
		if recover() != nil {
			e, ok = nil, false
		}
	}()
	return conv.err(v), true
}

// yaegiLayout is where the fields of yaegi's node and itype that
// wrappedType reads are, found once from their reflect types.
type yaegiLayout struct {
	once            sync.Once
	typ, interp     int // node.typ, node.interp
	name, path, val int // itype.name, itype.path, itype.val
	ok              bool
}

var yaegiFields yaegiLayout

// wrappedType returns yaegi's name of the type of the value in its
// wrapper v, a valueInterface, when the type is of the package main: the
// type's name (level), or * and the name for a pointer to a named type
// (*pt); and the interpreter that made the value.
func wrappedType(v any) (name string, interp uintptr, ok bool) {
	rv := reflect.ValueOf(v)
	if !isValueInterface(rv.Type()) {
		return "", 0, false
	}
	n := rv.Field(0)
	if n.Kind() != reflect.Pointer || n.IsNil() {
		return "", 0, false
	}
	f := &yaegiFields
	f.once.Do(func() { f.find(n.Type().Elem()) })
	if !f.ok {
		return "", 0, false
	}
	node := n.Elem()
	typ := node.Field(f.typ)
	if typ.IsNil() {
		return "", 0, false
	}
	star := ""
	it := typ.Elem()
	if it.Field(f.name).String() == "" && reflect.TypeOf(bareValue(v)).Kind() == reflect.Pointer {
		if val := it.Field(f.val); !val.IsNil() {
			star, it = "*", val.Elem()
		}
	}
	name = it.Field(f.name).String()
	if name == "" || it.Field(f.path).String() != "main" {
		return "", 0, false
	}
	return star + name, node.Field(f.interp).Pointer(), true
}

// find finds the fields of yaegi's node (nodeType) and itype that
// wrappedType reads, checking their kinds.
func (f *yaegiLayout) find(nodeType reflect.Type) {
	index := func(t reflect.Type, name string, kind reflect.Kind) int {
		if sf, ok := t.FieldByName(name); ok && len(sf.Index) == 1 && sf.Type.Kind() == kind {
			return sf.Index[0]
		}
		return -1
	}
	f.typ = index(nodeType, "typ", reflect.Pointer)
	f.interp = index(nodeType, "interp", reflect.Pointer)
	if f.typ < 0 || f.interp < 0 {
		return
	}
	it := nodeType.Field(f.typ).Type.Elem()
	f.name, f.path, f.val = index(it, "name", reflect.String), index(it, "path", reflect.String), index(it, "val", reflect.Pointer)
	f.ok = f.name >= 0 && f.path >= 0 && f.val >= 0 && it.Field(f.val).Type == nodeType.Field(f.typ).Type
}

// Values in an any inside a printed value.
//
// fmt prints the elements of a map[string]any, a [][]any or a field of
// type any of yaegi's wrapper as a struct of a node and a reflect.Value.
// So a value that holds interfaces (not behind a pointer, except a
// pointer printed itself) is printed as a copy whose interface elements
// are what printArg gives for them: the operands of values of the
// session's types, the bare values of others; a field that Go does not
// export gets the bare value, since fmt calls no method of it. The copy
// has the value's type, so fmt prints its type names and nil elements as
// of the value.

// holdsIface caches, by reflect type, whether values of the type hold an
// interface that operandsIn converts.
var holdsIface sync.Map

// mayHoldIface reports whether values of t hold an interface, not behind
// a pointer: t is an interface, or a slice, array, map (its elements) or
// struct without methods (fmt prints a value with methods by them) that
// holds one.
func mayHoldIface(t reflect.Type) bool {
	if r, ok := holdsIface.Load(t); ok {
		return r.(bool)
	}
	r := scanIface(t, 0)
	holdsIface.Store(t, r)
	return r
}

func scanIface(t reflect.Type, depth int) bool {
	if depth > 8 {
		return false
	}
	if t.Kind() != reflect.Interface && t.NumMethod() > 0 {
		return false
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Slice, reflect.Array, reflect.Map:
		return t.Elem().Kind() != reflect.Uint8 && scanIface(t.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() && scanIface(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}

// operandsIn returns a copy of v whose interfaces hold what printArg
// gives for their values, and true, when that changes one of them; a
// pointer only at the top (depth 0), where fmt prints what it points to.
func (tn *typeNames) operandsIn(v reflect.Value, depth int) (reflect.Value, bool) {
	if depth > 8 || !v.IsValid() {
		return v, false
	}
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		if depth > 0 || v.IsNil() || !mayHoldIface(t.Elem()) {
			return v, false
		}
		switch t.Elem().Kind() {
		case reflect.Struct, reflect.Array, reflect.Slice, reflect.Map:
		default:
			return v, false
		}
		e, ok := tn.operandsIn(v.Elem(), depth+1)
		if !ok {
			return v, false
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(e)
		return p, true
	}
	if !mayHoldIface(t) {
		return v, false
	}
	var out reflect.Value
	switch t.Kind() {
	case reflect.Interface:
		if v.IsNil() || !v.Elem().CanInterface() {
			return v, false
		}
		p, changed := tn.printArg(v.Elem().Interface())
		if !changed || p == nil || !reflect.TypeOf(p).AssignableTo(t) {
			return v, false
		}
		out = reflect.New(t).Elem()
		out.Set(reflect.ValueOf(p))
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			e, ok := tn.operandsIn(v.Index(i), depth+1)
			if !ok {
				continue
			}
			if !out.IsValid() {
				if t.Kind() == reflect.Slice {
					out = reflect.MakeSlice(t, v.Len(), v.Len())
					reflect.Copy(out, v)
				} else {
					out = reflect.New(t).Elem()
					out.Set(v)
				}
			}
			out.Index(i).Set(e)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			e, ok := tn.operandsIn(it.Value(), depth+1)
			if !ok {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeMapWithSize(t, v.Len())
				all := v.MapRange()
				for all.Next() {
					out.SetMapIndex(all.Key(), all.Value())
				}
			}
			out.SetMapIndex(it.Key(), e)
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				continue
			}
			fv := v.Field(i)
			var e reflect.Value
			ok := false
			if mangled(t.Field(i).Name) {
				// A field Go does not export: its value, bare.
				if fv.Kind() == reflect.Interface && !fv.IsNil() && isValueInterface(fv.Elem().Type()) {
					if b := bareValue(fv.Interface()); b != nil {
						name := reflect.TypeOf(b).String()
						if yname, _, found := wrappedType(fv.Interface()); found {
							name = goTypeName(yname)
						}
						e, ok = reflect.New(fv.Type()).Elem(), true
						e.Set(reflect.ValueOf(fmtOperand{tn: tn, name: name, v: b}))
					}
				}
			} else {
				e, ok = tn.operandsIn(fv, depth+1)
			}
			if !ok {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(t).Elem()
				out.Set(v)
			}
			out.Field(i).Set(e)
		}
	}
	return out, out.IsValid()
}

// topOperand is printArg of a, an argument of a printing function, and
// of what a non-nil pointer a to a struct, array, slice or map points to.
func (tn *typeNames) topOperand(a any) (any, bool) {
	if rv := reflect.ValueOf(a); rv.Kind() == reflect.Pointer {
		if c, ok := tn.operandsIn(rv, 0); ok {
			return c.Interface(), true
		}
	}
	return tn.printArg(a)
}

// goTypeName is the Go name of the type yaegi names yname in the package
// main: main.level, *main.pt.
func goTypeName(yname string) string {
	if n, ok := strings.CutPrefix(yname, "*"); ok {
		return "*main." + n
	}
	return "main." + yname
}

// errorfArgs returns the arguments of fmt.Errorf with the interfaces
// inside those that are not errors made operands (operandsIn): %w needs
// its error as it is, and ErrorfOperand serves the values in yaegi's
// wrapper.
func (tn *typeNames) errorfArgs(args []any) []any {
	if !tn.anys.any() && (tn.ivals == nil || !tn.ivals.any()) {
		return args
	}
	var out []any
	for k, a := range args {
		if _, isErr := a.(error); isErr || a == nil || isValueInterface(reflect.TypeOf(a)) {
			continue
		}
		c, ok := tn.operandsIn(reflect.ValueOf(a), 0)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[k] = c.Interface()
	}
	if out == nil {
		return args
	}
	return out
}
