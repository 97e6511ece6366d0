package symtypes

import (
	"fmt"
	"go/constant"
	"go/types"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/gnnlab/gnnlab/interp/symbols"
	"github.com/traefik/yaegi/stdlib"
)

// symbolTypes describes the compiled packages of the interpreter to
// go/types: it builds a *types.Package from a package's yaegi symbol
// table (functions, variables, constants and types, each from its
// reflect value) and converts reflect types into go/types types. With
// it the session's type checker knows what `gq.Indptr[v]` or
// `nn.NewLinear(2, 16)` is, as yaegi does, without Go's export data
// (the binary runs where there is no Go toolchain).
//
// The packages and types are the same for every session of the process,
// so one table serves them all; mu guards it.
type symbolTypes struct {
	mu    sync.Mutex
	names map[string]string         // import path -> package name
	pkgs  map[string]*types.Package // by path; complete once imported
	done  map[string]bool           // paths whose symbols are in pkgs
	types map[reflect.Type]types.Type
	// visiting are the unnamed types being converted since the last
	// named one (typeOf).
	visiting map[reflect.Type]bool
}

// plugins holds the symbol tables of the session's compiled cells (Go
// plugins) by import path (RegisterPlugin).
var plugins sync.Map

// RegisterPlugin makes the package of a compiled cell (a Go plugin loaded
// by interp's compiled tier) known to the type checker, as the preloaded
// packages are: path is its import path, name its package name.
func RegisterPlugin(path, name string, syms map[string]reflect.Value) {
	symTypes.mu.Lock()
	defer symTypes.mu.Unlock()
	symTypes.loadNames()
	symTypes.names[path] = name
	plugins.Store(path, syms)
}

// generics holds, by import path, generic functions that a plugin cannot
// hold (they have no values) but that go/types is to see in its package
// (RegisterGeneric).
var generics sync.Map

// RegisterGeneric adds to the package at path, as the type checker sees
// it, objects that its symbol table cannot hold: the generic functions
// of a package plugin, from the package's export data, so that go/types
// infers the type arguments of their calls. Call it before the package
// is first imported (RegisterPlugin).
func RegisterGeneric(path string, objs []types.Object) { generics.Store(path, objs) }

// IsPlugin reports whether path is the import path of a compiled cell.
func IsPlugin(path string) bool {
	_, ok := plugins.Load(path)
	return ok
}

var symTypes = &symbolTypes{
	pkgs:  map[string]*types.Package{},
	done:  map[string]bool{},
	types: map[reflect.Type]types.Type{},
}

// table returns the symbol table of path; the package names are read
// from the keys of yaegi's standard library and the gnnlab tables once.
func (st *symbolTypes) table(path string) map[string]reflect.Value {
	st.loadNames()
	name, ok := st.names[path]
	if !ok {
		return nil
	}
	if t, ok := plugins.Load(path); ok {
		return t.(map[string]reflect.Value)
	}
	if t, ok := symbols.Symbols[path+"/"+name]; ok {
		return t
	}
	return stdlib.Symbols[path+"/"+name]
}

func (st *symbolTypes) loadNames() {
	if st.names == nil {
		st.names = map[string]string{}
		for _, tables := range []map[string]map[string]reflect.Value{stdlib.Symbols, symbols.Symbols} {
			for key := range tables {
				if i := strings.LastIndex(key, "/"); i > 0 {
					st.names[key[:i]] = key[i+1:]
				}
			}
		}
	}
}

// Import implements types.Importer over the symbol tables.
func (st *symbolTypes) Import(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	syms := st.table(path)
	if syms == nil {
		return nil, fmt.Errorf("interp: package %q is not in the interpreter", path)
	}
	p := st.pkg(path)
	if st.done[path] {
		return p, nil
	}
	st.done[path] = true
	scope := p.Scope()
	for name, v := range syms {
		if !v.IsValid() || name == "" || name[0] == '_' || scope.Lookup(name) != nil {
			continue
		}
		if t, ok := sessionStreams[path+"."+name]; ok {
			// The session replaces them (see Session.newInterp).
			scope.Insert(types.NewVar(0, p, name, st.must(t)))
			continue
		}
		if obj := st.object(p, name, v); obj != nil {
			scope.Insert(obj)
		}
	}
	if objs, ok := generics.Load(path); ok {
		for _, obj := range objs.([]types.Object) {
			if scope.Lookup(obj.Name()) == nil {
				scope.Insert(obj)
			}
		}
	}
	p.MarkComplete()
	return p, nil
}

// object converts one symbol: a type is a nil pointer to it, a variable
// an addressable value, an untyped constant a constant.Value, a typed
// constant a plain value.
func (st *symbolTypes) object(p *types.Package, name string, v reflect.Value) types.Object {
	if c, ok := v.Interface().(constant.Value); ok && !v.CanAddr() {
		return types.NewConst(0, p, name, untypedOf(c), c)
	}
	switch {
	case v.CanAddr():
		t, ok := st.typeOf(v.Type())
		if !ok {
			return nil
		}
		return types.NewVar(0, p, name, t)
	case v.Kind() == reflect.Pointer && v.IsNil():
		t, ok := st.typeOf(v.Type().Elem())
		if !ok {
			return nil
		}
		if n, ok := t.(*types.Named); ok && n.Obj().Pkg() == p && n.Obj().Name() == name {
			return n.Obj()
		}
		return types.NewTypeName(0, p, name, t) // an alias
	case v.Kind() == reflect.Func:
		t, ok := st.typeOf(v.Type())
		if !ok {
			return nil
		}
		return types.NewFunc(0, p, name, t.(*types.Signature))
	}
	t, ok := st.typeOf(v.Type())
	if !ok {
		return nil
	}
	if c := constantOf(v); c != nil {
		return types.NewConst(0, p, name, t, c)
	}
	return types.NewVar(0, p, name, t)
}

func untypedOf(c constant.Value) types.Type {
	switch c.Kind() {
	case constant.Bool:
		return types.Typ[types.UntypedBool]
	case constant.String:
		return types.Typ[types.UntypedString]
	case constant.Float:
		return types.Typ[types.UntypedFloat]
	case constant.Complex:
		return types.Typ[types.UntypedComplex]
	}
	return types.Typ[types.UntypedInt]
}

func constantOf(v reflect.Value) constant.Value {
	switch v.Kind() {
	case reflect.Bool:
		return constant.MakeBool(v.Bool())
	case reflect.String:
		return constant.MakeString(v.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return constant.MakeInt64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return constant.MakeUint64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return constant.MakeFloat64(v.Float())
	}
	return nil
}

// pkg returns the package of path, created empty on first use.
func (st *symbolTypes) pkg(path string) *types.Package {
	if p, ok := st.pkgs[path]; ok {
		return p
	}
	st.loadNames()
	name, ok := st.names[path]
	if !ok {
		name = path[strings.LastIndex(path, "/")+1:]
	}
	p := types.NewPackage(path, name)
	st.pkgs[path] = p
	return p
}

// TypeOf converts a reflect type, reporting false for a type that go/types
// cannot be told about.
func (st *symbolTypes) TypeOf(t reflect.Type) (types.Type, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.typeOf(t)
}

var basicKinds = map[reflect.Kind]types.BasicKind{
	reflect.Bool: types.Bool, reflect.Int: types.Int, reflect.Int8: types.Int8,
	reflect.Int16: types.Int16, reflect.Int32: types.Int32, reflect.Int64: types.Int64,
	reflect.Uint: types.Uint, reflect.Uint8: types.Uint8, reflect.Uint16: types.Uint16,
	reflect.Uint32: types.Uint32, reflect.Uint64: types.Uint64, reflect.Uintptr: types.Uintptr,
	reflect.Float32: types.Float32, reflect.Float64: types.Float64,
	reflect.Complex64: types.Complex64, reflect.Complex128: types.Complex128,
	reflect.String: types.String, reflect.UnsafePointer: types.UnsafePointer,
}

var errorType = reflect.TypeFor[error]()

// sessionStreams are the types of the standard streams in cells.
var sessionStreams = map[string]reflect.Type{
	"os.Stdin":  reflect.TypeFor[io.Reader](),
	"os.Stdout": reflect.TypeFor[io.Writer](),
	"os.Stderr": reflect.TypeFor[io.Writer](),
}

func (st *symbolTypes) must(t reflect.Type) types.Type {
	tt, ok := st.typeOf(t)
	if !ok {
		panic("interp: no go/types type for " + t.String())
	}
	return tt
}

func (st *symbolTypes) typeOf(t reflect.Type) (types.Type, bool) {
	if tt, ok := st.types[t]; ok {
		return tt, tt != nil
	}
	if t == errorType {
		return types.Universe.Lookup("error").Type(), true
	}
	if t.Name() != "" && t.PkgPath() != "" {
		return st.named(t)
	}
	if b, ok := basicKinds[t.Kind()]; ok {
		// A predeclared type, or an unnamed one of a basic kind.
		return types.Typ[b], true
	}
	// yaegi makes a recursive type of the session (type Node struct{ Next
	// *Node }) an unnamed reflect type that contains itself, which go/types
	// cannot be told about: meeting t again inside t, with no named type
	// between (named resets visiting), answers false, where the recursion
	// overflowed the stack and killed the worker.
	if st.visiting[t] {
		return nil, false
	}
	if st.visiting == nil {
		st.visiting = map[reflect.Type]bool{}
	}
	st.visiting[t] = true
	defer delete(st.visiting, t)
	var tt types.Type
	ok := true
	elem := func(e reflect.Type) types.Type {
		x, k := st.typeOf(e)
		ok = ok && k
		return x
	}
	switch t.Kind() {
	case reflect.Pointer:
		tt = types.NewPointer(elem(t.Elem()))
	case reflect.Slice:
		tt = types.NewSlice(elem(t.Elem()))
	case reflect.Array:
		tt = types.NewArray(elem(t.Elem()), int64(t.Len()))
	case reflect.Map:
		tt = types.NewMap(elem(t.Key()), elem(t.Elem()))
	case reflect.Chan:
		dir := types.SendRecv
		switch t.ChanDir() {
		case reflect.SendDir:
			dir = types.SendOnly
		case reflect.RecvDir:
			dir = types.RecvOnly
		}
		tt = types.NewChan(dir, elem(t.Elem()))
	case reflect.Func:
		var sig *types.Signature
		sig, ok = st.signature(t, 0)
		tt = sig
	case reflect.Struct:
		tt, ok = st.structOf(t)
	case reflect.Interface:
		tt, ok = st.interfaceOf(t)
	default:
		ok = false
	}
	if !ok {
		st.types[t] = nil
		return nil, false
	}
	st.types[t] = tt
	return tt, true
}

// named converts a defined type of a compiled package, with its exported
// methods. It is cached before its underlying type is converted, so that
// recursive types end.
func (st *symbolTypes) named(t reflect.Type) (types.Type, bool) {
	p := st.pkg(t.PkgPath())
	obj := types.NewTypeName(0, p, t.Name(), nil)
	n := types.NewNamed(obj, nil, nil)
	st.types[t] = n
	// A type that refers back to t ends at n: what it contains starts
	// afresh (typeOf's visiting).
	saved := st.visiting
	st.visiting = nil
	defer func() { st.visiting = saved }()
	var under types.Type
	ok := true
	switch t.Kind() {
	case reflect.Struct:
		under, ok = st.structOf(t)
	case reflect.Interface:
		under, ok = st.interfaceOf(t)
	case reflect.Func:
		under, ok = st.signature(t, 0)
	default:
		if b, isBasic := basicKinds[t.Kind()]; isBasic {
			under = types.Typ[b]
			break
		}
		// The underlying type of a defined composite type: the same
		// composite built from the element types.
		var u reflect.Type
		switch t.Kind() {
		case reflect.Pointer:
			u = reflect.PointerTo(t.Elem())
		case reflect.Slice:
			u = reflect.SliceOf(t.Elem())
		case reflect.Array:
			u = reflect.ArrayOf(t.Len(), t.Elem())
		case reflect.Map:
			u = reflect.MapOf(t.Key(), t.Elem())
		case reflect.Chan:
			u = reflect.ChanOf(t.ChanDir(), t.Elem())
		}
		if u == nil {
			ok = false
			break
		}
		under, ok = st.typeOf(u)
	}
	if !ok {
		under = types.NewStruct(nil, nil)
	}
	n.SetUnderlying(under.Underlying())
	if t.Kind() != reflect.Interface {
		// Methods of the value's method set have a value receiver, the
		// others of the pointer's method set a pointer receiver.
		pt := reflect.PointerTo(t)
		for i := 0; i < pt.NumMethod(); i++ {
			m := pt.Method(i)
			recvT := types.Type(types.NewPointer(n))
			if _, onValue := t.MethodByName(m.Name); onValue {
				recvT = n
			}
			sig, ok := st.signature(m.Type, 1)
			if !ok {
				continue
			}
			recv := types.NewVar(0, p, "", recvT)
			msig := types.NewSignatureType(recv, nil, nil, sig.Params(), sig.Results(), sig.Variadic())
			n.AddMethod(types.NewFunc(0, p, m.Name, msig))
		}
	}
	return n, true
}

// signature converts a function type, skipping its first skip parameters
// (a method's receiver).
func (st *symbolTypes) signature(t reflect.Type, skip int) (*types.Signature, bool) {
	var params, results []*types.Var
	for i := skip; i < t.NumIn(); i++ {
		pt, ok := st.typeOf(t.In(i))
		if !ok {
			return nil, false
		}
		params = append(params, types.NewVar(0, nil, "", pt))
	}
	for i := 0; i < t.NumOut(); i++ {
		rt, ok := st.typeOf(t.Out(i))
		if !ok {
			return nil, false
		}
		results = append(results, types.NewVar(0, nil, "", rt))
	}
	return types.NewSignatureType(nil, nil, nil, types.NewTuple(params...), types.NewTuple(results...), t.IsVariadic()), true
}

func (st *symbolTypes) structOf(t reflect.Type) (types.Type, bool) {
	fields := make([]*types.Var, 0, t.NumField())
	tags := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		ft, ok := st.typeOf(f.Type)
		if !ok {
			return nil, false
		}
		var p *types.Package
		if f.PkgPath != "" {
			p = st.pkg(f.PkgPath)
		}
		fields = append(fields, types.NewField(0, p, f.Name, ft, f.Anonymous))
		tags = append(tags, string(f.Tag))
	}
	return types.NewStruct(fields, tags), true
}

func (st *symbolTypes) interfaceOf(t reflect.Type) (types.Type, bool) {
	var methods []*types.Func
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		sig, ok := st.signature(m.Type, 0)
		if !ok {
			return nil, false
		}
		var p *types.Package
		if m.PkgPath != "" {
			p = st.pkg(m.PkgPath)
		}
		methods = append(methods, types.NewFunc(0, p, m.Name, sig))
	}
	it := types.NewInterfaceType(methods, nil)
	it.Complete()
	return it, true
}
