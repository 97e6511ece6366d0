package slices

// The generic functions of slices that the session writes out at each call
// (genericmacro.go in internal/rewrite): go/types sees their signatures,
// and a call becomes the function's literal, its type parameters replaced
// by the type arguments go/types inferred (helpers.MacroBodies). PFXSort
// and PFXSortStableFunc are the interpreted helpers of slices.go.

func All[E any](s []E) func(yield func(int, E) bool) {
	return func(yield func(int, E) bool) {
		for i := 0; i < len(s); i++ {
			if !yield(i, s[i]) {
				return
			}
		}
	}
}

func Values[E any](s []E) func(yield func(E) bool) {
	return func(yield func(E) bool) {
		for i := 0; i < len(s); i++ {
			if !yield(s[i]) {
				return
			}
		}
	}
}

func Backward[E any](s []E) func(yield func(int, E) bool) {
	return func(yield func(int, E) bool) {
		for i := len(s) - 1; i >= 0; i-- {
			if !yield(i, s[i]) {
				return
			}
		}
	}
}

func Collect[E any](seq func(yield func(E) bool)) []E {
	var s []E
	seq(func(v E) bool { s = append(s, v); return true })
	return s
}

func AppendSeq[S ~[]E, E any](s S, seq func(yield func(E) bool)) S {
	seq(func(v E) bool { s = append(s, v); return true })
	return s
}

func Sorted[E ordered](seq func(yield func(E) bool)) []E {
	var s []E
	seq(func(v E) bool { s = append(s, v); return true })
	PFXSort[E](s)
	return s
}

func SortedFunc[E any](seq func(yield func(E) bool), cmp func(E, E) int) []E {
	var s []E
	seq(func(v E) bool { s = append(s, v); return true })
	PFXSortStableFunc[E](s, cmp)
	return s
}

func Clone[S ~[]E, E any](s S) S {
	if s == nil {
		return nil
	}
	return append(S{}, s...)
}

func Compact[S ~[]E, E comparable](s S) S {
	if len(s) < 2 {
		return s
	}
	i := 1
	for k := 1; k < len(s); k++ {
		if s[k] != s[k-1] {
			s[i] = s[k]
			i++
		}
	}
	for k := i; k < len(s); k++ {
		var z E
		s[k] = z
	}
	return s[:i]
}

func CompactFunc[S ~[]E, E any](s S, eq func(E, E) bool) S {
	if len(s) < 2 {
		return s
	}
	i := 1
	for k := 1; k < len(s); k++ {
		if !eq(s[k], s[i-1]) {
			s[i] = s[k]
			i++
		}
	}
	for k := i; k < len(s); k++ {
		var z E
		s[k] = z
	}
	return s[:i]
}

func Insert[S ~[]E, E any](s S, i int, v ...E) S {
	_ = s[i:]
	r := make(S, 0, len(s)+len(v))
	r = append(r, s[:i]...)
	r = append(r, v...)
	return append(r, s[i:]...)
}

func Delete[S ~[]E, E any](s S, i, j int) S {
	_ = s[i:j:len(s)]
	if i == j {
		return s
	}
	n := len(s)
	s = append(s[:i], s[j:]...)
	for k := len(s); k < n; k++ {
		var z E
		s[:n][k] = z
	}
	return s
}

func DeleteFunc[S ~[]E, E any](s S, del func(E) bool) S {
	i := 0
	for k := 0; k < len(s); k++ {
		if !del(s[k]) {
			s[i] = s[k]
			i++
		}
	}
	for k := i; k < len(s); k++ {
		var z E
		s[k] = z
	}
	return s[:i]
}

func Concat[S ~[]E, E any](ss ...S) S {
	var r S
	for _, s := range ss {
		r = append(r, s...)
	}
	return r
}

func Repeat[S ~[]E, E any](x S, count int) S {
	if count < 0 {
		panic("cannot be negative")
	}
	r := make(S, 0, len(x)*count)
	for k := 0; k < count; k++ {
		r = append(r, x...)
	}
	return r
}

func Chunk[E any](s []E, n int) func(yield func([]E) bool) {
	if n < 1 {
		panic("cannot be less than 1")
	}
	return func(yield func([]E) bool) {
		for i := 0; i < len(s); i += n {
			end := i + n
			if end > len(s) {
				end = len(s)
			}
			if !yield(s[i:end:end]) {
				return
			}
		}
	}
}
