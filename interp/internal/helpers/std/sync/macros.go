package sync

// The signatures that go/types sees of the generic functions of sync that
// the session writes out at each call (macroBodies in internal/rewrite's
// genericmacro.go); their type parameters are the {k} of the bodies.

func OnceValue[T any](f func() T) func() T                     { return nil }
func OnceValues[T1, T2 any](f func() (T1, T2)) func() (T1, T2) { return nil }
