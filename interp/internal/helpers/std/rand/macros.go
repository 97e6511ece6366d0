package rand

// The signatures that go/types sees of the generic functions of math/rand/v2 that
// the session writes out at each call (macroBodies in internal/rewrite's
// genericmacro.go); their type parameters are the {k} of the bodies.

type intType interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

func N[Int intType](n Int) Int { return n }
