package maps

// The signatures that go/types sees of the generic functions of maps that
// the session writes out at each call (macroBodies in internal/rewrite's
// genericmacro.go); their type parameters are the {k} of the bodies.

func Keys[K comparable, V any](m map[K]V) func(yield func(K) bool)           { return nil }
func Values[K comparable, V any](m map[K]V) func(yield func(V) bool)         { return nil }
func All[K comparable, V any](m map[K]V) func(yield func(K, V) bool)         { return nil }
func Collect[K comparable, V any](seq func(yield func(K, V) bool)) map[K]V   { return nil }
func Clone[M ~map[K]V, K comparable, V any](m M) M                           { return nil }
func Insert[K comparable, V any](m map[K]V, seq func(yield func(K, V) bool)) {}
