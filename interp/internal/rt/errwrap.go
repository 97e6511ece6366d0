package rt

import (
	"fmt"
	"reflect"

	yaegi "github.com/traefik/yaegi/interp"
)

// Interpreted error types seen by compiled code.
//
// yaegi hands an interpreted value to compiled code that wants an error
// in a wrapper struct (a first field IValue holding the value, then one
// func field per method) whose only method is Error: errors.Is and
// errors.Unwrap did not see an interpreted Unwrap method, and errors.As
// panicked on a target of an interpreted type, whose reflect type has no
// methods. The wrappers are not comparable either: err == target panicked
// where both held interpreted values.
//
// The session gives yaegi wrappers with Unwrap, Is and As as well, which
// it picks for a type that has these methods (yaegi's MapTypes of the
// error wrapper), replaces errors.Is and errors.As by versions that look
// through the wrappers, and compares interface values of compiled
// interface types with Equal (internal/rewrite/rewrite_iface.go), which compares the
// wrapped values.

// The wrappers, most methods first (yaegi takes the first whose methods
// the type has all of).
type (
	errUIA struct {
		IValue  any
		WError  func() string
		WUnwrap func() error
		WIs     func(error) bool
		WAs     func(any) bool
	}
	errUI struct {
		IValue  any
		WError  func() string
		WUnwrap func() error
		WIs     func(error) bool
	}
	errUA struct {
		IValue  any
		WError  func() string
		WUnwrap func() error
		WAs     func(any) bool
	}
	errIA struct {
		IValue any
		WError func() string
		WIs    func(error) bool
		WAs    func(any) bool
	}
	errU struct {
		IValue  any
		WError  func() string
		WUnwrap func() error
	}
	errI struct {
		IValue any
		WError func() string
		WIs    func(error) bool
	}
	errA struct {
		IValue any
		WError func() string
		WAs    func(any) bool
	}
)

func (w errUIA) Error() string        { return w.WError() }
func (w errUIA) Unwrap() error        { return w.WUnwrap() }
func (w errUIA) Is(target error) bool { return w.WIs(target) }
func (w errUIA) As(target any) bool   { return w.WAs(target) }
func (w errUI) Error() string         { return w.WError() }
func (w errUI) Unwrap() error         { return w.WUnwrap() }
func (w errUI) Is(target error) bool  { return w.WIs(target) }
func (w errUA) Error() string         { return w.WError() }
func (w errUA) Unwrap() error         { return w.WUnwrap() }
func (w errUA) As(target any) bool    { return w.WAs(target) }
func (w errIA) Error() string         { return w.WError() }
func (w errIA) Is(target error) bool  { return w.WIs(target) }
func (w errIA) As(target any) bool    { return w.WAs(target) }
func (w errU) Error() string          { return w.WError() }
func (w errU) Unwrap() error          { return w.WUnwrap() }
func (w errI) Error() string          { return w.WError() }
func (w errI) Is(target error) bool   { return w.WIs(target) }
func (w errA) Error() string          { return w.WError() }
func (w errA) As(target any) bool     { return w.WAs(target) }

// ErrorSymbols returns errors.Is and errors.As, and the error wrappers,
// keyed by yaegi's own wrapper type, which an interpreted error returned
// as an error shows: errCall is a call of an interpreted function that
// returns an interpreted error (the helper source's __gnnlab_err()).
func ErrorSymbols(i *yaegi.Interpreter, errCall string) (yaegi.Exports, error) {
	e := yaegi.Exports{
		"errors/errors": {
			"Is": reflect.ValueOf(errorsIs),
			"As": reflect.ValueOf(errorsAs),
		},
	}
	v, err := i.Eval(errCall)
	if err != nil {
		return nil, err
	}
	if v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("yaegi's error wrapper is %v, want a struct", v)
	}
	w := reflect.Zero(reflect.PointerTo(v.Type())) // as yaegi's reflect.ValueOf((*_error)(nil))
	e["."] = map[string]reflect.Value{"MapTypes": reflect.ValueOf(map[reflect.Value][]reflect.Type{w: {
		reflect.TypeFor[errUIA](), reflect.TypeFor[errUI](), reflect.TypeFor[errUA](), reflect.TypeFor[errIA](),
		reflect.TypeFor[errU](), reflect.TypeFor[errI](), reflect.TypeFor[errA](),
	}})}
	return e, nil
}

// unwrapped is v without yaegi's interface wrappers.
func unwrapped(v reflect.Value) reflect.Value {
	for v.IsValid() {
		if v.Kind() == reflect.Interface {
			v = v.Elem()
			continue
		}
		if t := v.Type(); t.Kind() == reflect.Struct && t.NumField() > 0 && t.Field(0).Name == "IValue" && t.Field(0).Type.Kind() == reflect.Interface {
			v = v.Field(0)
			continue
		}
		break
	}
	return v
}

// equal is a == b for interface values that may hold yaegi's wrappers
// (valueInterface too, bareValue): the wrapped values are compared, and,
// as in Go, comparing two values of one uncomparable type panics.
func equal(a, b any) bool {
	va, vb := unwrapped(reflect.ValueOf(bareValue(a))), unwrapped(reflect.ValueOf(bareValue(b)))
	if !va.IsValid() || !vb.IsValid() {
		return va.IsValid() == vb.IsValid()
	}
	if va.Type() != vb.Type() {
		return false
	}
	if !va.Type().Comparable() {
		panic(goRuntimeError("comparing uncomparable type " + va.Type().String()))
	}
	return va.Interface() == vb.Interface()
}

// errorPtr is the error returned for a nil pointer p of an interpreted
// type (internal/rewrite/rewrite_iface.go): a non-nil error, as in Go, whose Error method
// is p's.
func errorPtr(isNil bool, msg func() string, e error) error {
	if isNil {
		return nilPtrError{msg}
	}
	return e
}

// nilPtrError is a nil pointer of an interpreted error type held in an
// error.
type nilPtrError struct{ msg func() string }

func (e nilPtrError) Error() string { return e.msg() }

// recovered is the value of recover() in a cell (internal/rewrite/rewrite.go): yaegi's
// recover returned the panic value as a reflect.Value.
func recovered(v any) any {
	if rv, ok := v.(reflect.Value); ok {
		if !rv.IsValid() {
			return nil
		}
		return rv.Interface()
	}
	return v
}

// shiftCount is a signed shift count that is not constant (x << n,
// internal/rewrite/rewrite.go): Go panics when it is negative, yaegi shifted by it.
func shiftCount(n int64) uint64 {
	if n < 0 {
		panic(goRuntimeError("negative shift amount"))
	}
	return uint64(n)
}

// goRuntimeError is a panic value of the runtime.Error kind.
type goRuntimeError string

func (e goRuntimeError) Error() string { return "runtime error: " + string(e) }
func (goRuntimeError) RuntimeError()   {}

// errorsIs is errors.Is, comparing through yaegi's wrappers.
func errorsIs(err, target error) bool {
	if err == nil || target == nil {
		return err == target
	}
	return isIn(err, target)
}

func isIn(err, target error) bool {
	for err != nil {
		if comparableWrapped(err) && comparableWrapped(target) && equal(err, target) {
			return true
		}
		if x, ok := err.(interface{ Is(error) bool }); ok && x.Is(target) {
			return true
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if e != nil && isIn(e, target) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

func comparableWrapped(x any) bool {
	v := unwrapped(reflect.ValueOf(x))
	return v.IsValid() && v.Type().Comparable()
}

// errorsAs is errors.As, matching the value that a wrapper holds against
// a target of an interpreted type.
func errorsAs(err error, target any) bool {
	if err == nil {
		return false
	}
	if target == nil {
		panic("errors: target cannot be nil")
	}
	val := reflect.ValueOf(target)
	typ := val.Type()
	if typ.Kind() != reflect.Pointer || val.IsNil() {
		panic("errors: target must be a non-nil pointer")
	}
	return asIn(err, val.Elem(), typ.Elem())
}

func asIn(err error, dst reflect.Value, targetType reflect.Type) bool {
	for err != nil {
		if reflect.TypeOf(err).AssignableTo(targetType) {
			dst.Set(reflect.ValueOf(err))
			return true
		}
		if v := unwrapped(reflect.ValueOf(err)); v.IsValid() && v != reflect.ValueOf(err) && targetType.Kind() != reflect.Interface {
			if v.Type().AssignableTo(targetType) {
				dst.Set(v)
				return true
			}
			if targetType.Kind() == reflect.Struct && targetType.Name() == "" && targetType.NumField() > 0 && v.Type() == targetType.Field(targetType.NumField()-1).Type {
				// yaegi's wrapper of a struct holds its last field,
				// not the struct (a structError, which holds the
				// struct, matched above: ifacevalue.go).
				panic(fmt.Sprintf("errors.As with a target of an interpreted struct type (%s) is not supported by the interpreter: give the type pointer receivers and use a pointer target", targetType))
			}
		}
		if x, ok := err.(interface{ As(any) bool }); ok && x.As(dst.Addr().Interface()) {
			return true
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if e != nil && asIn(e, dst, targetType) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}
