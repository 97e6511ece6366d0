// Package testrand draws the random edge lists and features that the
// tests of gnnlib/graph and gnnlib/graph/kernels share.
package testrand

import "math/rand/v2"

// Edges returns m random edges between nSrc sources and nDst
// destinations, duplicates and self-loops included.
func Edges(rng *rand.Rand, nSrc, nDst, m int) (src, dst []int) {
	src, dst = make([]int, m), make([]int, m)
	for i := range src {
		src[i], dst[i] = rng.IntN(nSrc), rng.IntN(nDst)
	}
	return src, dst
}

// Floats returns n standard normal values.
func Floats(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}
