package iter

// The signatures that go/types sees of the generic functions of iter that
// the session writes out at each call (macroBodies in internal/rewrite's
// genericmacro.go); their type parameters are the {k} of the bodies.

func Pull[V any](seq Seq[V]) (func() (V, bool), func())            { return nil, nil }
func Pull2[K, V any](seq Seq2[K, V]) (func() (K, V, bool), func()) { return nil, nil }
