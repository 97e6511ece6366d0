package maps

// The generic functions of maps that the session writes out at each call
// (genericmacro.go in internal/rewrite): go/types sees their signatures,
// and a call becomes the function's literal, its type parameters replaced
// by the type arguments go/types inferred (helpers.MacroBodies).

func Keys[K comparable, V any](m map[K]V) func(yield func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func Values[K comparable, V any](m map[K]V) func(yield func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

func All[K comparable, V any](m map[K]V) func(yield func(K, V) bool) {
	return func(yield func(K, V) bool) {
		for k, v := range m {
			if !yield(k, v) {
				return
			}
		}
	}
}

func Collect[K comparable, V any](seq func(yield func(K, V) bool)) map[K]V {
	m := map[K]V{}
	seq(func(k K, v V) bool { m[k] = v; return true })
	return m
}

func Clone[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return nil
	}
	c := make(M, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func Insert[K comparable, V any](m map[K]V, seq func(yield func(K, V) bool)) {
	seq(func(k K, v V) bool { m[k] = v; return true })
}
