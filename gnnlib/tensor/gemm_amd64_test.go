//go:build !purego

package tensor

import (
	"math"
	"testing"
)

// TestKernelAVX2 checks the assembly micro-kernel against the Go one on the
// same packed panels, overwriting and accumulating, with a leading
// dimension wider than the tile. The two differ only by rounding (FMA).
func TestKernelAVX2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2/FMA on this processor")
	}
	rng := NewRNG(7)
	for _, kb := range []int{1, 2, 3, 31, 256} {
		for _, acc := range []bool{false, true} {
			a, b := rng.Normal(0, 1, kb*mr).data, rng.Normal(0, 1, kb*nr).data
			const ldc = nr + 5
			c0 := rng.Normal(0, 1, mr*ldc).data
			got := append([]float32(nil), c0...)
			want := append([]float32(nil), c0...)
			kernel6x16AVX2(kb, &a[0], &b[0], &got[0], ldc, acc)
			kernelGo(kb, a, b, want, ldc, acc)
			for i := range got {
				if i%ldc >= nr {
					if got[i] != c0[i] {
						t.Fatalf("kb=%d acc=%v: c[%d] beyond the tile = %v, want %v (untouched)", kb, acc, i, got[i], c0[i])
					}
					continue
				}
				if math.Abs(float64(got[i]-want[i])) > 1e-5*(1+float64(kb)) {
					t.Errorf("kb=%d acc=%v: kernel6x16AVX2 c[%d] = %v, want %v", kb, acc, i, got[i], want[i])
				}
			}
		}
	}
}
