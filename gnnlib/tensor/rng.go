package tensor

import (
	"math/rand/v2"
)

// RNG is a seeded source of random numbers and random tensors. The same seed
// gives the same sequence on every platform. An RNG is not safe for
// concurrent use.
type RNG struct {
	r *rand.Rand
}

// NewRNG returns a generator seeded with seed (a PCG generator).
func NewRNG(seed int64) *RNG {
	return &RNG{r: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))}
}

// Float32 returns a uniform value in [0, 1).
func (g *RNG) Float32() float32 { return g.r.Float32() }

// Float64 returns a uniform value in [0, 1).
func (g *RNG) Float64() float64 { return g.r.Float64() }

// NormFloat64 returns a standard normal value.
func (g *RNG) NormFloat64() float64 { return g.r.NormFloat64() }

// Intn returns a uniform integer in [0, n).
func (g *RNG) Intn(n int) int { return g.r.IntN(n) }

// Perm returns a random permutation of [0, n).
func (g *RNG) Perm(n int) []int { return g.r.Perm(n) }

// Shuffle shuffles idx in place.
func (g *RNG) Shuffle(idx []int) {
	g.r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
}

// Uniform returns a tensor of the given shape with values uniform in [lo, hi).
func (g *RNG) Uniform(lo, hi float32, shape ...int) *Tensor {
	checkShape("Uniform", shape)
	t := newDense(shape)
	w := hi - lo
	for i := range t.data {
		t.data[i] = lo + w*g.r.Float32()
	}
	return t
}

// Normal returns a tensor of the given shape with values drawn from
// N(mean, std²).
func (g *RNG) Normal(mean, std float32, shape ...int) *Tensor {
	checkShape("Normal", shape)
	t := newDense(shape)
	for i := range t.data {
		t.data[i] = mean + std*float32(g.r.NormFloat64())
	}
	return t
}

// Rand returns a tensor of the given shape with values uniform in [0, 1),
// from a generator seeded with seed.
func Rand(seed int64, shape ...int) *Tensor { return NewRNG(seed).Uniform(0, 1, shape...) }

// Randn returns a tensor of the given shape with standard normal values,
// from a generator seeded with seed.
func Randn(seed int64, shape ...int) *Tensor { return NewRNG(seed).Normal(0, 1, shape...) }
