package rand

// The generic functions of math/rand/v2 that the session writes out at
// each call (genericmacro.go in internal/rewrite): go/types sees their
// signatures, and a call becomes the function's literal, its type
// parameters replaced by the type arguments go/types inferred and this
// file's name of package math/rand/v2 by the cell's (helpers.MacroBodies).

import "math/rand/v2"

type intType interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

func N[Int intType](n Int) Int {
	if n <= 0 {
		panic("invalid argument to N")
	}
	return Int(rand.Uint64N(uint64(n)))
}
