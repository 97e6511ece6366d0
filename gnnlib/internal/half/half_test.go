package half

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// nearest is the reference rounding: among the candidate values cands
// (sorted, as big.Floats, all finite), the one nearest x, ties to the one
// whose bits are even. It works in exact arithmetic, independently of the
// bit tricks under test.
func nearest(x float64, lo, hi float64, loBits, hiBits uint16) uint16 {
	bx, bl, bh := big.NewFloat(x), big.NewFloat(lo), big.NewFloat(hi)
	dl := new(big.Float).Sub(bx, bl)
	dh := new(big.Float).Sub(bh, bx)
	dl.Abs(dl)
	dh.Abs(dh)
	switch dl.Cmp(dh) {
	case -1:
		return loBits
	case 1:
		return hiBits
	}
	if loBits&1 == 0 {
		return loBits
	}
	return hiBits
}

// refBF16 rounds a finite float32 to BF16 by exact comparison with its two
// neighbours (truncation and the next value up in magnitude).
func refBF16(f float32) BF16 {
	b := math.Float32bits(f)
	lo := uint16(b >> 16)
	if b&0xffff == 0 {
		return BF16(lo)
	}
	hi := lo + 1
	lov := float64(math.Float32frombits(uint32(lo) << 16))
	var hiv float64
	if hi&0x7fff == 0x7f80 { // the next value up is Inf: compare with 2^128
		hiv = math.Copysign(math.Ldexp(1, 128), lov)
	} else {
		hiv = float64(math.Float32frombits(uint32(hi) << 16))
	}
	return BF16(nearest(float64(f), lov, hiv, lo, hi))
}

// f16Value is the exact value of the FP16 bit pattern h (finite), and for
// 0x7c00 the value the next step would have had (65536), for rounding.
func f16Value(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	if e == 0 {
		return sign * m * math.Ldexp(1, -24)
	}
	return sign * (1 + m/1024) * math.Ldexp(1, e-15)
}

// refF16 rounds a finite float32 to FP16 by searching the FP16 grid.
func refF16(f float32) F16 {
	x := float64(f)
	sign := uint16(0)
	if math.Signbit(x) {
		sign = 0x8000
	}
	a := math.Abs(x)
	// Find the largest magnitude pattern whose value is ≤ a (0..0x7c00).
	lo, hi := uint16(0), uint16(0x7c00)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if f16Value(mid) <= a {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if f16Value(lo) == a {
		return F16(sign | lo)
	}
	if lo == 0x7c00 { // a ≥ 65536
		return F16(sign | 0x7c00)
	}
	return F16(sign | nearest(a, f16Value(lo), f16Value(lo+1), lo, lo+1))
}

func TestBF16Exhaustive(t *testing.T) {
	// Every BF16 converts to float32 exactly and back unchanged; every
	// midpoint between neighbours rounds to the even one; the float32s
	// one ulp either side of a midpoint round to the nearer neighbour.
	for h := 0; h < 1<<16; h++ {
		b := BF16(h)
		f := b.Float32()
		if isNaN32(f) {
			if g := FromFloat32BF16(f); !isNaN32(g.Float32()) || g&0x8000 != b&0x8000 {
				t.Fatalf("FromFloat32BF16(NaN %#04x) = %#04x, want a NaN with the same sign", h, g)
			}
			continue
		}
		if g := FromFloat32BF16(f); g != b {
			t.Fatalf("FromFloat32BF16(%v) = %#04x, want %#04x", f, g, h)
		}
		base := uint32(h) << 16
		if h&0x7fff >= 0x7f80 {
			continue // Inf: no values above it
		}
		for _, low := range []uint32{0x7fff, 0x8000, 0x8001, 1, 0xffff, 0x4000, 0xc000} {
			x := math.Float32frombits(base | low)
			if g, w := FromFloat32BF16(x), refBF16(x); g != w {
				t.Fatalf("FromFloat32BF16(%#08x) = %#04x, want %#04x", base|low, g, w)
			}
		}
	}
}

func TestBF16Edges(t *testing.T) {
	inf := float32(math.Inf(1))
	cases := []struct {
		in   float32
		want BF16
	}{
		{0, 0},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3f80},
		{-2, 0xc000},
		{inf, 0x7f80},
		{-inf, 0xff80},
		{math.MaxFloat32, 0x7f80}, // rounds past the largest BF16
		{math.Float32frombits(0x7f7f7fff), 0x7f7f}, // just below the midpoint to Inf
		{math.Float32frombits(0x7f7f8000), 0x7f80}, // the midpoint, odd below: up to Inf
		{math.Float32frombits(0x3f808000), 0x3f80}, // tie, even below: down
		{math.Float32frombits(0x3f818000), 0x3f82}, // tie, odd below: up
		{math.Float32frombits(0x00000001), 0x0000}, // smallest subnormal float32
		{math.Float32frombits(0x00008000), 0x0000}, // tie at 0: stays even 0
		{math.Float32frombits(0x00018000), 0x0002}, // tie, odd below: up
		{math.Float32frombits(0x007fffff), 0x0080}, // largest subnormal rounds to the smallest normal
		{math.Float32frombits(0x80010000), 0x8001}, // negative subnormal, exact
	}
	for _, c := range cases {
		if got := FromFloat32BF16(c.in); got != c.want {
			t.Errorf("FromFloat32BF16(%#08x) = %#04x, want %#04x", math.Float32bits(c.in), got, c.want)
		}
	}
	nan := math.Float32frombits(0x7f800001) // signalling NaN whose payload is all in the low bits
	if g := FromFloat32BF16(nan); !isNaN32(g.Float32()) {
		t.Errorf("FromFloat32BF16(sNaN 0x7f800001) = %#04x, not a NaN (truncation would give Inf)", g)
	}
	if g := FromFloat32BF16(math.Float32frombits(0xffc00000)); g != 0xffc0 {
		t.Errorf("FromFloat32BF16(-qNaN) = %#04x, want 0xffc0", g)
	}
}

func TestBF16Random(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 2_000_000
	if testing.Short() {
		n = 200_000
	}
	for range n {
		bits := r.Uint32()
		x := math.Float32frombits(bits)
		if isNaN32(x) || math.IsInf(float64(x), 0) {
			continue
		}
		if g, w := FromFloat32BF16(x), refBF16(x); g != w {
			t.Fatalf("FromFloat32BF16(%#08x) = %#04x, want %#04x", bits, g, w)
		}
	}
}

func TestF16Exhaustive(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		b := F16(h)
		f := b.Float32()
		e := h >> 10 & 0x1f
		if e == 0x1f && h&0x3ff != 0 {
			if !isNaN32(f) {
				t.Fatalf("F16(%#04x).Float32() = %v, want NaN", h, f)
			}
			if g := FromFloat32F16(f); g>>10&0x1f != 0x1f || g&0x3ff == 0 || g&0x8000 != b&0x8000 {
				t.Fatalf("FromFloat32F16(NaN %#04x) = %#04x, want a NaN with the same sign", h, g)
			}
			continue
		}
		if e != 0x1f && float64(f) != f16Value(uint16(h)) {
			t.Fatalf("F16(%#04x).Float32() = %v, want %v", h, f, f16Value(uint16(h)))
		}
		if g := FromFloat32F16(f); g != b {
			t.Fatalf("FromFloat32F16(%v) = %#04x, want %#04x", f, g, h)
		}
		if h&0x7fff >= 0x7c00 {
			continue
		}
		// Midpoint to the next pattern up in magnitude and its float32
		// neighbours (all exactly representable in float32).
		next := f16Value(uint16(h + 1))
		if h&0x7fff == 0x7bff {
			next = math.Copysign(65536, float64(f))
		}
		mid := float32((float64(f) + next) / 2)
		for _, x := range []float32{mid, math.Nextafter32(mid, 0), math.Nextafter32(mid, float32(math.Inf(1))), math.Nextafter32(mid, float32(math.Inf(-1)))} {
			if g, w := FromFloat32F16(x), refF16(x); g != w {
				t.Fatalf("FromFloat32F16(%v = %#08x) = %#04x, want %#04x", x, math.Float32bits(x), g, w)
			}
		}
	}
}

func TestF16Edges(t *testing.T) {
	inf := float32(math.Inf(1))
	cases := []struct {
		in   float32
		want F16
	}{
		{0, 0},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{65504, 0x7bff},
		{65519.996, 0x7bff}, // below the midpoint 65520
		{65520, 0x7c00},     // the midpoint, odd below: Inf
		{1e6, 0x7c00},
		{-inf, 0xfc00},
		{math.Float32frombits(0x33800000), 0x0001}, // 2⁻²⁴, the smallest subnormal
		{math.Float32frombits(0x33000000), 0x0000}, // 2⁻²⁵, tie: to even 0
		{math.Float32frombits(0x33000001), 0x0001}, // just above the tie
		{math.Float32frombits(0x33c00000), 0x0002}, // 1.5·2⁻²⁴, tie: to even 2
		{math.Float32frombits(0x387fc000), 0x03ff}, // the largest subnormal, exact
		{math.Float32frombits(0x387fe000), 0x0400}, // tie above it rounds up from the largest subnormal to the smallest normal
		{1e-10, 0},
		{-1e-10, 0x8000},
		{math.Float32frombits(0x3f801000), 0x3c00}, // tie after 1: to even
		{math.Float32frombits(0x3f803000), 0x3c02}, // tie, odd below: up
	}
	for _, c := range cases {
		if got := FromFloat32F16(c.in); got != c.want {
			t.Errorf("FromFloat32F16(%v = %#08x) = %#04x, want %#04x", c.in, math.Float32bits(c.in), got, c.want)
		}
	}
}

func TestF16Random(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	for i := range n {
		var x float32
		if i%2 == 0 { // concentrate on FP16's range
			x = float32(r.NormFloat64() * math.Exp2(float64(r.IntN(50)-30)))
		} else {
			x = math.Float32frombits(r.Uint32())
		}
		if isNaN32(x) || math.IsInf(float64(x), 0) {
			continue
		}
		if g, w := FromFloat32F16(x), refF16(x); g != w {
			t.Fatalf("FromFloat32F16(%v = %#08x) = %#04x, want %#04x", x, math.Float32bits(x), g, w)
		}
	}
}

func TestRoundBound(t *testing.T) {
	// The relative error of a normal value is at most half an ulp.
	r := rand.New(rand.NewPCG(5, 6))
	for range 100_000 {
		x := float32(r.NormFloat64() * 100)
		if e := math.Abs(float64(RoundBF16(x)-x)) / math.Abs(float64(x)); e > EpsBF16 {
			t.Fatalf("RoundBF16(%v) relative error %v > %v", x, e, EpsBF16)
		}
		if e := math.Abs(float64(RoundF16(x)-x)) / math.Abs(float64(x)); e > EpsF16 {
			t.Fatalf("RoundF16(%v) relative error %v > %v", x, e, EpsF16)
		}
	}
}

func isNaN32(f float32) bool { return f != f }
