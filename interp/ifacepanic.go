package interp

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
