package slices

// The signatures that go/types sees of the generic functions of slices that
// the session writes out at each call (macroBodies in internal/rewrite's
// genericmacro.go); their type parameters are the {k} of the bodies.

func All[E any](s []E) func(yield func(int, E) bool)                         { return nil }
func Values[E any](s []E) func(yield func(E) bool)                           { return nil }
func Backward[E any](s []E) func(yield func(int, E) bool)                    { return nil }
func Collect[E any](seq func(yield func(E) bool)) []E                        { return nil }
func AppendSeq[S ~[]E, E any](s S, seq func(yield func(E) bool)) S           { return nil }
func Sorted[E ordered](seq func(yield func(E) bool)) []E                     { return nil }
func SortedFunc[E any](seq func(yield func(E) bool), cmp func(E, E) int) []E { return nil }
func Clone[S ~[]E, E any](s S) S                                             { return nil }
func Compact[S ~[]E, E comparable](s S) S                                    { return nil }
func CompactFunc[S ~[]E, E any](s S, eq func(E, E) bool) S                   { return nil }
func Insert[S ~[]E, E any](s S, i int, v ...E) S                             { return nil }
func Delete[S ~[]E, E any](s S, i, j int) S                                  { return nil }
func DeleteFunc[S ~[]E, E any](s S, del func(E) bool) S                      { return nil }
func Concat[S ~[]E, E any](ss ...S) S                                        { return nil }
func Repeat[S ~[]E, E any](x S, count int) S                                 { return nil }
func Chunk[E any](s []E, n int) func(yield func([]E) bool)                   { return nil }
