package tensor

import (
	"fmt"
	"math"
	"testing"
)

// naiveGemm is the reference for gemm: float64 sums over strided operands.
func naiveGemm(m, n, k int, a, b matrix, c []float32, ldc int, acc bool) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				s += float64(a.data[i*a.rs+p*a.cs]) * float64(b.data[p*b.rs+j*b.cs])
			}
			if acc {
				s += float64(c[i*ldc+j])
			}
			c[i*ldc+j] = float32(s)
		}
	}
}

// TestGemm checks the blocked kernel (the assembly one where the processor
// has AVX2) against the naive product on sizes around every block edge
// (mr, nr, kc, mc, nc), with plain and transposed operands, a leading
// dimension wider than n, and accumulation into c.
func TestGemm(t *testing.T) {
	rng := NewRNG(3)
	sizes := [][3]int{
		{1, 1, 1}, {5, 15, 3}, {6, 16, 1}, {7, 17, 2}, {13, 7, 64}, {2708, 7, 16},
		{95, 33, 255}, {97, 31, 257}, {193, 513, 9}, {12, 530, 520}, {100, 64, 300},
	}
	for _, sz := range sizes {
		m, n, k := sz[0], sz[1], sz[2]
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				for _, acc := range []bool{false, true} {
					name := fmt.Sprintf("%dx%dx%d/ta=%v/tb=%v/acc=%v", m, n, k, ta, tb, acc)
					ad := rng.Normal(0, 1, m*k).data
					bd := rng.Normal(0, 1, k*n).data
					a, b := matrix{ad, k, 1}, matrix{bd, n, 1}
					if ta { // a stored as k×m
						a = matrix{ad, 1, m}
					}
					if tb { // b stored as n×k
						b = matrix{bd, 1, k}
					}
					ldc := n + 3
					c0 := rng.Normal(0, 1, m*ldc).data
					got := append([]float32(nil), c0...)
					want := append([]float32(nil), c0...)
					gemm(m, n, k, a, b, got, ldc, acc)
					naiveGemm(m, n, k, a, b, want, ldc, acc)
					for i := 0; i < m; i++ {
						for j := 0; j < ldc; j++ {
							g, w := got[i*ldc+j], want[i*ldc+j]
							if j >= n { // the padding beyond n is untouched
								if g != c0[i*ldc+j] {
									t.Fatalf("%s: c[%d][%d] (padding) = %v, want %v", name, i, j, g, c0[i*ldc+j])
								}
								continue
							}
							if math.Abs(float64(g-w)) > 1e-4*(1+math.Sqrt(float64(k))+math.Abs(float64(w))) {
								t.Fatalf("%s: c[%d][%d] = %v, want %v", name, i, j, g, w)
							}
						}
					}
				}
			}
		}
	}
}

// TestKernelGo checks the Go micro-kernel (the one used without AVX2)
// against float64 sums.
func TestKernelGo(t *testing.T) {
	rng := NewRNG(5)
	for _, kb := range []int{1, 2, 7, 256} {
		a, b := rng.Normal(0, 1, kb*mr).data, rng.Normal(0, 1, kb*nr).data
		c := make([]float32, mr*nr)
		kernelGo(kb, a, b, c, nr, false)
		for i := 0; i < mr; i++ {
			for j := 0; j < nr; j++ {
				var s float64
				for p := 0; p < kb; p++ {
					s += float64(a[p*mr+i]) * float64(b[p*nr+j])
				}
				if math.Abs(float64(c[i*nr+j])-s) > 1e-4*(1+math.Abs(s)) {
					t.Errorf("kernelGo(kb=%d) c[%d][%d] = %v, want %v", kb, i, j, c[i*nr+j], s)
				}
			}
		}
	}
}
