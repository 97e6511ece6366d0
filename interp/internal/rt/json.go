package rt

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	yaegi "github.com/traefik/yaegi/interp"
)

// encoding/json and the cells' struct types.
//
// yaegi makes each struct type of a cell with reflect.StructOf, without a
// name, so an *json.UnmarshalTypeError named no struct: "Go struct field
// .id", where Go says "Go struct field User.id". The session's
// json.Unmarshal (jsonSymbols) gives such an error the Go name of the
// struct that holds the field, found by following the error's field path
// from the type of the target through the field names that encoding/json
// uses, and the names that the session registered (fmtnames.go).

// jsonSymbols returns the session's json.Unmarshal, and json.Marshal and
// MarshalIndent, whose errors name the cells' types (jsonMarshalError).
func (tn *typeNames) jsonSymbols() yaegi.Exports {
	return yaegi.Exports{
		"encoding/json/json": {
			"Unmarshal": reflect.ValueOf(func(data []byte, v any) error {
				return tn.jsonError(json.Unmarshal(data, v), v)
			}),
			"Marshal": reflect.ValueOf(func(v any) ([]byte, error) {
				b, err := json.Marshal(v)
				return b, jsonMarshalError(err)
			}),
			"MarshalIndent": reflect.ValueOf(func(v any, prefix, indent string) ([]byte, error) {
				b, err := json.MarshalIndent(v, prefix, indent)
				return b, jsonMarshalError(err)
			}),
		},
	}
}

// jsonEncode is __gnnlab_rt.JSONEncode: enc.Encode(v), whose error
// names the cells' types.
func jsonEncode(enc *json.Encoder, v any) error {
	return jsonMarshalError(enc.Encode(v))
}

// jsonError is err, an error of encoding/json decoding into v, with the
// name of the struct filled in where it is a type error whose struct is
// an unnamed reflect type that the session knows by a Go name.
func (tn *typeNames) jsonError(err error, v any) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Struct != "" || te.Field == "" {
		return err
	}
	if name := tn.jsonStruct(reflect.TypeOf(v), strings.Split(te.Field, ".")); name != "" {
		te.Struct = name
	}
	return err
}

// jsonStruct returns the Go name (User, without the package) of the
// struct type that holds the last field of path in a value of type t (or
// of a shadow, json.go's, of that type), as
// encoding/json's errors name it (the struct that was being decoded: of a
// field promoted from an embedded struct, the outer one), or "" where
// that struct has no registered name or path does not lead through t.
// path holds the fields' JSON names, and the reflect names of the
// embedded fields that lead to a promoted field.
func (tn *typeNames) jsonStruct(t reflect.Type, path []string) string {
	var owner, embedding reflect.Type
	for _, elem := range path {
		st := jsonStructType(t)
		if st == nil {
			return ""
		}
		if f, ok := st.FieldByName(elem); ok && embedsFields(f) {
			if embedding == nil {
				embedding = st
			}
			t = f.Type
			continue
		}
		f, ok := jsonField(st, elem)
		if !ok {
			return ""
		}
		owner = st
		if embedding != nil {
			owner, embedding = embedding, nil
		}
		t = f.Type
	}
	if owner == nil {
		return ""
	}
	if o, ok := shadowOrigin.Load(owner); ok {
		owner = o.(reflect.Type)
	}
	nt, ok := tn.lookup(owner)
	if !ok {
		return ""
	}
	return strings.TrimPrefix(nt.name, "main.")
}

// jsonStructType is the struct type that decoding into a value of type t
// fills: t itself, or the element of a pointer, slice, array or map; nil
// for other types.
func jsonStructType(t reflect.Type) reflect.Type {
	for t != nil {
		switch t.Kind() {
		case reflect.Struct:
			return t
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		default:
			return nil
		}
	}
	return nil
}

// jsonField is the field of the struct type st whose JSON name (tag or
// field name) is name, not one of an embedded struct.
func jsonField(st reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		n := jsonName(f)
		if n == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if embedsFields(f) {
			continue // the path names it
		}
		if n == "" {
			n = f.Name
		}
		if n == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// jsonName is the name that f's json tag gives, or "".
func jsonName(f reflect.StructField) string {
	tag, ok := f.Tag.Lookup("json")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	return name
}

// embedsFields reports whether encoding/json promotes the fields of f's
// type: f is an embedded struct, or pointer to one, without a JSON name.
func embedsFields(f reflect.StructField) bool {
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return f.Anonymous && jsonName(f) == "" && t.Kind() == reflect.Struct
}

// The MarshalJSON and UnmarshalJSON methods of the cells' types.
//
// encoding/json sees yaegi's reflect types, which have no methods (a type
// Color int is an int there), so it called neither method. Where the
// value passed to json.Marshal, MarshalIndent, (*Encoder).Encode,
// json.Unmarshal or (*Decoder).Decode has a static type that holds a type
// of the session with either method (internal/rewrite/rewrite_json.go), the session passes
// a description of where such values are in it (jsonPlan) and the
// interpreted methods, and encodes or decodes a copy (a shadow) whose
// type has, at those places, an interface holding jsonOut, whose
// MarshalJSON calls the interpreted one, or a json.RawMessage, which the
// interpreted UnmarshalJSON is given once the shadow is decoded and
// copied back.
//
// A plan is a string: "." nothing to do, "#k" a value of the k-th type
// with methods, "*P" a pointer, "[P" a slice or array, "mP" a map's
// values, "{i:P;...}" a struct's fields by index (only those with
// something to do; "i=P;" for a field that Go embeds, which yaegi's
// reflect type does not mark as embedded: encoding/json did not promote
// its fields, {"Base":{"id":1}} for {"id":1}; the shadow's field is
// embedded).

// jsonPlan is a parsed plan.
type jsonPlan struct {
	kind   byte // '#', '*', '[', 'm', '{'
	hook   int
	elem   *jsonPlan
	fields map[int]*jsonPlan
	embeds map[int]bool // the embedded fields
}

// jsonHooks are the interpreted methods of the types that a plan names,
// by index: marshal(p) calls p's MarshalJSON, unmarshal(p, b) p's
// UnmarshalJSON, p a pointer to the value; nil where the type lacks the
// method. addr[k] reports whether MarshalJSON has a pointer receiver
// (encoding/json calls it for addressable values only), names[k] is the
// type's Go name (main.Color).
type jsonHooks struct {
	marshal   []func(any) ([]byte, error)
	unmarshal []func(any, []byte) error
	addr      []bool
	names     []string
}

var jsonPlans sync.Map // plan string -> *jsonPlan

// parseJSONPlan returns the parsed plan s (nil for "."), cached.
func parseJSONPlan(s string) (*jsonPlan, error) {
	if p, ok := jsonPlans.Load(s); ok {
		return p.(*jsonPlan), nil
	}
	p, rest, err := parsePlan(s)
	if err == nil && rest != "" {
		err = errors.New("trailing " + rest)
	}
	if err != nil {
		return nil, errors.New("interp: bad json plan " + strconv.Quote(s) + ": " + err.Error())
	}
	jsonPlans.Store(s, p)
	return p, nil
}

func parsePlan(s string) (*jsonPlan, string, error) {
	if s == "" {
		return nil, s, errors.New("end of plan")
	}
	switch c := s[0]; c {
	case '.':
		return nil, s[1:], nil
	case '#':
		n, rest := leadingInt(s[1:])
		if n < 0 {
			return nil, s, errors.New("no hook index")
		}
		return &jsonPlan{kind: c, hook: n}, rest, nil
	case '*', '[', 'm':
		e, rest, err := parsePlan(s[1:])
		if err != nil {
			return nil, s, err
		}
		if e == nil {
			return nil, rest, nil
		}
		return &jsonPlan{kind: c, elem: e}, rest, nil
	case '{':
		p := &jsonPlan{kind: c, fields: map[int]*jsonPlan{}, embeds: map[int]bool{}}
		s = s[1:]
		for !strings.HasPrefix(s, "}") {
			i, rest := leadingInt(s)
			if i < 0 || !strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, "=") {
				return nil, s, errors.New("bad field")
			}
			if rest[0] == '=' {
				p.embeds[i] = true
			}
			f, rest, err := parsePlan(rest[1:])
			if err != nil {
				return nil, s, err
			}
			if !strings.HasPrefix(rest, ";") {
				return nil, s, errors.New("no ; after field")
			}
			if f != nil {
				p.fields[i] = f
			}
			s = rest[1:]
		}
		return p, s[1:], nil
	}
	return nil, s, errors.New("unknown " + s[:1])
}

// leadingInt is the decimal number that s starts with (-1 if none) and
// the rest of s.
func leadingInt(s string) (int, string) {
	k := 0
	for k < len(s) && '0' <= s[k] && s[k] <= '9' {
		k++
	}
	if k == 0 {
		return -1, s
	}
	n, err := strconv.Atoi(s[:k])
	if err != nil {
		return -1, s
	}
	return n, s[k:]
}

var (
	anyType = reflect.TypeFor[any]()
	rawType = reflect.TypeFor[json.RawMessage]()
)

type shadowKey struct {
	t      reflect.Type
	plan   *jsonPlan
	decode bool
}

var (
	shadowTypes  sync.Map // shadowKey -> reflect.Type
	shadowOrigin sync.Map // a shadow's struct type -> the struct type it stands for
)

// shadowType is the type of t's shadow under plan p: for encoding, an
// any at the places of values with methods; for decoding, a
// json.RawMessage.
func shadowType(t reflect.Type, p *jsonPlan, decode bool) reflect.Type {
	if p == nil {
		return t
	}
	key := shadowKey{t, p, decode}
	if st, ok := shadowTypes.Load(key); ok {
		return st.(reflect.Type)
	}
	var st reflect.Type
	switch {
	case p.kind == '#' || p.kind == '*' && p.elem.kind == '#':
		st = anyType
		if decode {
			st = rawType
		}
	case p.kind == '*' && t.Kind() == reflect.Pointer:
		st = reflect.PointerTo(shadowType(t.Elem(), p.elem, decode))
	case p.kind == '[' && t.Kind() == reflect.Slice:
		st = reflect.SliceOf(shadowType(t.Elem(), p.elem, decode))
	case p.kind == '[' && t.Kind() == reflect.Array:
		st = reflect.ArrayOf(t.Len(), shadowType(t.Elem(), p.elem, decode))
	case p.kind == 'm' && t.Kind() == reflect.Map:
		st = reflect.MapOf(t.Key(), shadowType(t.Elem(), p.elem, decode))
	case p.kind == '{' && t.Kind() == reflect.Struct:
		fs := make([]reflect.StructField, t.NumField())
		for i := range fs {
			f := t.Field(i)
			fs[i] = reflect.StructField{Name: f.Name, PkgPath: f.PkgPath, Type: f.Type, Tag: f.Tag, Anonymous: f.Anonymous}
			if fp := p.fields[i]; fp != nil {
				fs[i].Type = shadowType(f.Type, fp, decode)
			}
			if p.embeds[i] && madeStruct(fs[i].Type) {
				fs[i].Anonymous = true
			}
		}
		st = reflect.StructOf(fs)
		shadowOrigin.Store(st, t)
	default:
		panic("interp: json plan " + string(p.kind) + " does not fit " + t.String())
	}
	shadowTypes.Store(key, st)
	return st
}

// madeStruct reports whether t is a struct type that yaegi made (unnamed,
// without methods), or a pointer to one: reflect.StructOf embeds these
// (it refuses some types with methods).
func madeStruct(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && t.Name() == "" && t.NumMethod() == 0
}

// jsonOut is a value with an interpreted MarshalJSON method, in a shadow.
type jsonOut struct {
	p    any // a pointer to the value
	f    func(any) ([]byte, error)
	name string // the Go name of the type whose method encoding/json calls (main.Color, *main.Color)
}

// MarshalJSON is the interpreted method's result. Its error, or the
// syntax error of its result, is given as a jsonOutError, which
// jsonMarshalError finds.
func (o jsonOut) MarshalJSON() ([]byte, error) {
	b, err := o.f(o.p)
	if err == nil {
		err = json.Compact(&bytes.Buffer{}, b)
	}
	if err != nil {
		return nil, jsonOutError{o.name, err}
	}
	return b, nil
}

// jsonOutError is an error of an interpreted MarshalJSON method of a
// value of the type named name.
type jsonOutError struct {
	name string
	err  error
}

func (e jsonOutError) Error() string { return e.err.Error() }
func (e jsonOutError) Unwrap() error { return e.err }

// jsonMarshalError is err, an error of encoding/json's encoding of a
// shadow, with the Go name of the type whose MarshalJSON failed where Go
// writes it ("json: error calling MarshalJSON for type main.Color: ..."),
// not jsonOut's: it unwraps to the *json.MarshalerError.
func jsonMarshalError(err error) error {
	var me *json.MarshalerError
	var oe jsonOutError
	if !errors.As(err, &me) || !errors.As(me.Err, &oe) {
		return err
	}
	return &jsonNamedError{"json: error calling MarshalJSON for type " + oe.name + ": " + oe.err.Error(), me}
}

// jsonNamedError is a *json.MarshalerError with the message that names the
// interpreted type.
type jsonNamedError struct {
	msg string
	me  *json.MarshalerError
}

func (e *jsonNamedError) Error() string { return e.msg }
func (e *jsonNamedError) Unwrap() error { return e.me }

// shadow returns the shadow of v under p, with hooks h: for decoding,
// with empty json.RawMessages where values with methods are.
func (h *jsonHooks) shadow(v reflect.Value, p *jsonPlan, decode bool) reflect.Value {
	if p == nil {
		return v
	}
	st := shadowType(v.Type(), p, decode)
	out := reflect.New(st).Elem()
	switch {
	case p.kind == '#' || p.kind == '*' && p.elem.kind == '#':
		if decode {
			return out
		}
		if p.kind == '*' {
			if !v.IsNil() {
				o := h.out(v.Interface(), p.elem.hook)
				o.name = "*" + o.name
				out.Set(reflect.ValueOf(o))
			}
			return out
		}
		k := p.hook
		switch {
		case h.marshal[k] == nil || h.addr[k] && !v.CanAddr():
			out.Set(v)
		case v.CanAddr():
			out.Set(reflect.ValueOf(h.out(v.Addr().Interface(), k)))
		default:
			c := reflect.New(v.Type())
			c.Elem().Set(v)
			out.Set(reflect.ValueOf(h.out(c.Interface(), k)))
		}
	case p.kind == '*':
		if !v.IsNil() {
			e := reflect.New(st.Elem())
			e.Elem().Set(h.shadow(v.Elem(), p.elem, decode))
			out.Set(e)
		}
	case p.kind == '[':
		if v.Kind() == reflect.Slice {
			if v.IsNil() {
				return out
			}
			out.Set(reflect.MakeSlice(st, v.Len(), v.Len()))
		}
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(h.shadow(v.Index(i), p.elem, decode))
		}
	case p.kind == 'm':
		if v.IsNil() {
			return out
		}
		out.Set(reflect.MakeMapWithSize(st, v.Len()))
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), h.shadow(it.Value(), p.elem, decode))
		}
	case p.kind == '{':
		for i := 0; i < v.NumField(); i++ {
			fp := p.fields[i]
			if fp == nil {
				out.Field(i).Set(v.Field(i))
				continue
			}
			if !decode && (fp.kind == '#' || fp.kind == '*' && fp.elem.kind == '#') && omitEmpty(v.Type().Field(i)) && v.Field(i).IsZero() && emptyKind(v.Field(i)) {
				continue // omitted as Go omits it, before its method
			}
			out.Field(i).Set(h.shadow(v.Field(i), fp, decode))
		}
	}
	return out
}

func (h *jsonHooks) out(p any, k int) jsonOut { return jsonOut{p, h.marshal[k], h.names[k]} }

// omitEmpty reports whether f's json tag has omitempty.
func omitEmpty(f reflect.StructField) bool {
	tag, _ := f.Tag.Lookup("json")
	_, opts, _ := strings.Cut(tag, ",")
	return slices.Contains(strings.Split(opts, ","), "omitempty")
}

// emptyKind reports whether a zero v is empty for omitempty: of a kind
// other than struct and array (an array of length 0 only).
func emptyKind(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Struct:
		return false
	case reflect.Array:
		return v.Len() == 0
	}
	return true
}

// restore copies the decoded shadow sv into dst (settable) under p,
// giving each value with methods its json.RawMessage through its
// UnmarshalJSON (or, without one, decoding it as encoding/json would);
// it returns the first error of these.
func (h *jsonHooks) restore(dst, sv reflect.Value, p *jsonPlan) error {
	if p == nil {
		dst.Set(sv)
		return nil
	}
	switch {
	case p.kind == '#' || p.kind == '*' && p.elem.kind == '#':
		raw := sv.Bytes()
		if raw == nil {
			return nil
		}
		k := p.hook
		target := dst
		if p.kind == '*' {
			if string(raw) == "null" {
				dst.Set(reflect.Zero(dst.Type()))
				return nil
			}
			if dst.IsNil() {
				dst.Set(reflect.New(dst.Type().Elem()))
			}
			k, target = p.elem.hook, dst.Elem()
		}
		if h.unmarshal[k] == nil {
			return json.Unmarshal(raw, target.Addr().Interface())
		}
		return h.unmarshal[k](target.Addr().Interface(), raw)
	case p.kind == '*':
		if sv.IsNil() {
			dst.Set(reflect.Zero(dst.Type()))
			return nil
		}
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		return h.restore(dst.Elem(), sv.Elem(), p.elem)
	case p.kind == '[':
		if dst.Kind() == reflect.Slice {
			if sv.IsNil() {
				dst.Set(reflect.Zero(dst.Type()))
				return nil
			}
			dst.Set(reflect.MakeSlice(dst.Type(), sv.Len(), sv.Len()))
		}
		var first error
		for i := 0; i < sv.Len(); i++ {
			if err := h.restore(dst.Index(i), sv.Index(i), p.elem); err != nil && first == nil {
				first = err
			}
		}
		return first
	case p.kind == 'm':
		if sv.IsNil() {
			dst.Set(reflect.Zero(dst.Type()))
			return nil
		}
		m := reflect.MakeMapWithSize(dst.Type(), sv.Len())
		var first error
		for it := sv.MapRange(); it.Next(); {
			e := reflect.New(dst.Type().Elem()).Elem()
			if err := h.restore(e, it.Value(), p.elem); err != nil && first == nil {
				first = err
			}
			m.SetMapIndex(it.Key(), e)
		}
		dst.Set(m)
		return first
	}
	var first error
	for i := 0; i < dst.NumField(); i++ {
		if err := h.restore(dst.Field(i), sv.Field(i), p.fields[i]); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// jsonMarshalValue is v as json.Marshal should see it under plan (the
// rewrite of json.Marshal(v) and its kin, internal/rewrite/rewrite_json.go): its shadow,
// or v where the plan does not fit v's type.
func jsonMarshalValue(v any, plan string, marshal []func(any) ([]byte, error), addr []bool, names []string) any {
	p, err := parseJSONPlan(plan)
	if err != nil || p == nil || v == nil || !planFits(reflect.TypeOf(v), p, len(marshal)) || len(addr) != len(marshal) || len(names) != len(marshal) ||
		!shadowable(reflect.TypeOf(v), p, false) {
		return v
	}
	h := &jsonHooks{marshal: marshal, addr: addr, names: names}
	return h.shadow(reflect.ValueOf(v), p, false).Interface()
}

// jsonTarget is the target of a decoding of encoding/json (json.Unmarshal,
// (*Decoder).Decode) whose element's type holds values with interpreted
// UnmarshalJSON methods at the places that plan gives.
type jsonTarget struct {
	tn   *typeNames
	v    any // the pointer given
	plan *jsonPlan
	h    *jsonHooks
	// The settings of the Decoder that decodes into it.
	useNumber, disallowUnknown bool
}

// UnmarshalJSON decodes data into the shadow of *t.v and copies it back,
// calling the interpreted methods.
func (t *jsonTarget) UnmarshalJSON(data []byte) error {
	rv := reflect.ValueOf(t.v)
	sp := reflect.New(shadowType(rv.Elem().Type(), t.plan, true))
	sp.Elem().Set(t.h.shadow(rv.Elem(), t.plan, true))
	var derr error
	if t.useNumber || t.disallowUnknown {
		d := json.NewDecoder(bytes.NewReader(data))
		if t.useNumber {
			d.UseNumber()
		}
		if t.disallowUnknown {
			d.DisallowUnknownFields()
		}
		derr = d.Decode(sp.Interface())
	} else {
		derr = json.Unmarshal(data, sp.Interface())
	}
	var syntax *json.SyntaxError
	if errors.As(derr, &syntax) {
		return derr
	}
	if err := t.h.restore(rv.Elem(), sp.Elem(), t.plan); err != nil {
		return err
	}
	return t.tn.jsonError(derr, sp.Interface()) // its embedded fields are marked
}

// jsonTargetOf is the target that the rewrite of a decoding gives
// encoding/json for the pointer v (internal/rewrite/rewrite_json.go): a *jsonTarget, or v
// where v is nil or the plan does not fit its element's type.
func (tn *typeNames) jsonTargetOf(v any, plan string, unmarshal []func(any, []byte) error) any {
	p, err := parseJSONPlan(plan)
	rv := reflect.ValueOf(v)
	if err != nil || p == nil || rv.Kind() != reflect.Pointer || rv.IsNil() || !planFits(rv.Type().Elem(), p, len(unmarshal)) ||
		!shadowable(rv.Type().Elem(), p, true) {
		return v
	}
	return &jsonTarget{tn: tn, v: v, plan: p, h: &jsonHooks{unmarshal: unmarshal}}
}

// jsonDecode is dec.Decode(v) under plan, as jsonTargetOf, with dec's
// UseNumber and DisallowUnknownFields settings, which the Decoder keeps
// unexported (read by reflect; unset where its fields are not found).
func (tn *typeNames) jsonDecode(dec *json.Decoder, v any, plan string, unmarshal []func(any, []byte) error) error {
	t := tn.jsonTargetOf(v, plan, unmarshal)
	if jt, ok := t.(*jsonTarget); ok {
		d := reflect.ValueOf(dec).Elem().FieldByName("d")
		flag := func(name string) bool {
			if !d.IsValid() || d.Kind() != reflect.Struct {
				return false
			}
			f := d.FieldByName(name)
			return f.IsValid() && f.Kind() == reflect.Bool && f.Bool()
		}
		jt.useNumber, jt.disallowUnknown = flag("useNumber"), flag("disallowUnknownFields")
	}
	return dec.Decode(t)
}

// shadowable reports whether reflect can make the shadow type of t under
// p (StructOf panics on some fields).
func shadowable(t reflect.Type, p *jsonPlan, decode bool) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	shadowType(t, p, decode)
	return true
}

// planFits reports whether the plan p fits the reflect type t, with hook
// indexes below n.
func planFits(t reflect.Type, p *jsonPlan, n int) bool {
	if p == nil {
		return true
	}
	switch p.kind {
	case '#':
		return p.hook < n
	case '*':
		return t.Kind() == reflect.Pointer && planFits(t.Elem(), p.elem, n)
	case '[':
		return (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && planFits(t.Elem(), p.elem, n)
	case 'm':
		return t.Kind() == reflect.Map && planFits(t.Elem(), p.elem, n)
	case '{':
		if t.Kind() != reflect.Struct {
			return false
		}
		for i, f := range p.fields {
			if i >= t.NumField() || !t.Field(i).IsExported() || !planFits(t.Field(i).Type, f, n) {
				return false
			}
		}
		for i := range p.embeds {
			if i >= t.NumField() || !t.Field(i).IsExported() {
				return false
			}
		}
		return true
	}
	return false
}
