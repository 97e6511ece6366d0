package sync

// The generic functions of sync that the session writes out at each call
// (genericmacro.go in internal/rewrite): go/types sees their signatures,
// and a call becomes the function's literal, its type parameters replaced
// by the type arguments go/types inferred and this file's name of package
// sync by the cell's (helpers.MacroBodies).

import "sync"

// A panic of f is not kept: a later call runs nothing and returns the zero
// values (Go's panics again with the same value).

func OnceValue[T any](f func() T) func() T {
	var once sync.Once
	var v T
	return func() T { once.Do(func() { v = f() }); return v }
}

func OnceValues[T1, T2 any](f func() (T1, T2)) func() (T1, T2) {
	var once sync.Once
	var a T1
	var b T2
	return func() (T1, T2) { once.Do(func() { a, b = f() }); return a, b }
}
