package rt

// The compiled helpers of single rewrites: Go's index panic, the
// conversion to a type parameter, the hidden field of empty structs.

import (
	"fmt"
	"reflect"
)

// indexOut is __gnnlab_rt.IndexOut: Go's panic for index i of a length n.
func indexOut(i any, n int) {
	if v := reflect.ValueOf(i); v.CanInt() && v.Int() < 0 {
		panic(goRuntimeError(fmt.Sprintf("index out of range [%d]", i)))
	}
	panic(goRuntimeError(fmt.Sprintf("index out of range [%d] with length %d", i, n)))
}

// convertTo sets *p to x converted to *p's type. A value of an
// interpreted type reaches it in yaegi's wrapper, which it takes off.
func convertTo(p, x any) {
	d := reflect.ValueOf(p).Elem()
	v := reflect.ValueOf(bareValue(x))
	if !v.IsValid() {
		d.SetZero()
		return
	}
	d.Set(v.Convert(d.Type()))
}

// emptyTag is the type of the field that the session adds to a struct
// type without fields that has a twin (internal/rewrite/rewrite_tags.go): it has no size,
// and fmt prints it as nothing, so that %v of the value is {} as in Go.
type emptyTag struct{}

var emptyTagType = reflect.TypeFor[emptyTag]()

// Format prints nothing.
func (emptyTag) Format(fmt.State, rune) {}
