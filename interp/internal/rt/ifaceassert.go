package rt

import "reflect"

// panicValue is the value of an uncaught panic as Go prints it: a value
// of a struct type of the session (or a pointer to one) with an Error
// method becomes an error, else one with a String method a fmt.Stringer,
// so that the message is the method's result (panic: invalid field name)
// and not the fields that yaegi's bare value printed (panic: &{name}).
// Other values are returned as they are.
func (iv *ifaceValues) panicValue(v any) any {
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		v = rv.Interface()
	}
	b := bareValue(v)
	f, ok := iv.known(b)
	switch {
	case !ok:
		return v
	case f.err != nil:
		return f.err(b)
	case f.str != nil:
		return f.str(b)
	}
	return v
}

// wrappedPointer is the pointer to a value of an interpreted type that v,
// yaegi's wrapper of it for a compiled interface (an error holding a *T,
// errwrap.go), holds, or else v. (Of a struct value, yaegi's wrapper holds
// its last field, not the value: such a wrapper is left as it is.)
// yaegi's assertion of the wrapper to an interface of the session saw
// the wrapper's methods only (e.(Temporary) was false).
func wrappedPointer(v any) any {
	if !isWrapper(reflect.TypeOf(v)) {
		return v
	}
	if u := unwrapped(reflect.ValueOf(v)); u.Kind() == reflect.Pointer && u.CanInterface() {
		return u.Interface()
	}
	return v
}
