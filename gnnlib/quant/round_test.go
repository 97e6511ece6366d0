package quant

import (
	"math"
	"math/rand"
	"testing"
)

// TestRoundClamp checks the branch-free rounding against roundToInt32 on
// ties, signed zeros, huge values and random values at several zero
// points and ranges, and that NaN gives the lowest code (roundToInt32's
// INT_MIN plus a negative zero point wraps around, so it is no reference
// there).
func TestRoundClamp(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
		0.49999997, -0.49999997, 126.5, -126.5, 127.5, -127.5, 128, -129, 254.5, 255.5,
		1e9, -1e9, 3e38, -3e38, float32(math.Inf(1)), float32(math.Inf(-1))}
	r := rand.New(rand.NewSource(1))
	for range 20000 {
		vals = append(vals, float32(r.NormFloat64()*100))
	}
	for _, v := range vals {
		want := min(max(roundToInt32(v), -127), 127)
		if got := round127(v); got != want {
			t.Errorf("round127(%v) = %d, want %d", v, got, want)
		}
	}
	if got := round127(float32(math.NaN())); got != -127 {
		t.Errorf("round127(NaN) = %d, want -127", got)
	}
	ranges := []struct{ z, lo, hi int32 }{{0, -127, 127}, {128, 0, 255}, {-3, -127, 127}, {0, -7, 7}, {-120, -128, 127}}
	for _, rg := range ranges {
		for _, v := range vals {
			want := min(max(roundToInt32(v)+rg.z, rg.lo), rg.hi)
			if got := roundClamp(v, rg.z, rg.lo, rg.hi); got != want {
				t.Errorf("roundClamp(%v, %d, %d, %d) = %d, want %d", v, rg.z, rg.lo, rg.hi, got, want)
			}
		}
		if got := roundClamp(float32(math.NaN()), rg.z, rg.lo, rg.hi); got != rg.lo {
			t.Errorf("roundClamp(NaN, %d, %d, %d) = %d, want %d", rg.z, rg.lo, rg.hi, got, rg.lo)
		}
	}
}
