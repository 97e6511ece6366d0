// Package iter is package iter as go/types sees it in cells (iter.go in
// internal/rewrite): yaegi has no package iter, and the session writes
// its types as the function types they are.
package iter

type Seq[V any] func(yield func(V) bool)

type Seq2[K, V any] func(yield func(K, V) bool)
