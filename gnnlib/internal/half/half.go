// Package half converts between float32 and the two 16-bit floating-point
// formats of mixed-precision training, bfloat16 (BF16: 1 sign, 8 exponent,
// 7 mantissa bits, float32's range) and IEEE 754 binary16 (FP16: 1, 5, 10,
// largest finite 65504), rounding to nearest with ties to even as the GPU's
// conversion instructions (cvt.rn.bf16.f32, cvt.rn.f16.f32) do. It is the
// CPU reference that gnnlib/tensor's autocast emulation and the device
// kernels' parity tests use.
//
// NaN stays NaN (a quiet NaN with the sign and the top payload bits kept);
// infinities stay infinite; FP16 keeps subnormals (down to 2⁻²⁴) and a
// float32 above the largest FP16 (after rounding) becomes infinite, as in
// IEEE 754. BF16 has float32's exponent range, so only values that round
// past the largest float32 become infinite; float32 subnormals keep their
// top 7 mantissa bits (rounded), as on the GPU.
package half

import "math"

// BF16 is a bfloat16 value: the top 16 bits of a float32.
type BF16 uint16

// F16 is an IEEE 754 binary16 value.
type F16 uint16

// FromFloat32BF16 rounds f to the nearest BF16, ties to even.
func FromFloat32BF16(f float32) BF16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 { // NaN: keep sign and top payload, set quiet bit
		return BF16(b>>16 | 0x0040)
	}
	// Adding 0x7fff plus the lowest kept bit rounds to nearest, ties to
	// even; a carry into the exponent is the correct result (up to Inf).
	b += 0x7fff + (b>>16)&1
	return BF16(b >> 16)
}

// Float32 returns h as a float32 (exact).
func (h BF16) Float32() float32 { return math.Float32frombits(uint32(h) << 16) }

// RoundBF16 returns f rounded to the nearest BF16 value, as a float32.
func RoundBF16(f float32) float32 { return FromFloat32BF16(f).Float32() }

// FromFloat32F16 rounds f to the nearest FP16, ties to even; values beyond
// the FP16 range become ±Inf, tiny ones FP16 subnormals or ±0.
func FromFloat32F16(f float32) F16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	abs := b & 0x7fffffff
	switch {
	case abs > 0x7f800000: // NaN
		return F16(sign | 0x7e00 | uint16(abs>>13)&0x01ff)
	case abs >= 0x47800000: // ≥ 65536 (or Inf): beyond every rounding to 65504
		return F16(sign | 0x7c00)
	case abs >= 0x38800000: // ≥ 2⁻¹⁴: normal in FP16
		// Rebias the exponent (127 → 15) and round the 23-bit mantissa
		// to 10 bits; a carry may overflow to Inf (0x7c00), correctly.
		v := abs - (112 << 23)
		v += 0x0fff + (v>>13)&1
		return F16(sign | uint16(v>>13))
	case abs >= 0x33000000: // ≥ 2⁻²⁵: subnormal in FP16, or rounds up to one
		e := abs >> 23                   // 102..112
		m := abs&0x007fffff | 0x00800000 // 24-bit significand
		shift := 126 - e                 // value = m·2^(e-150); in units of 2⁻²⁴: m >> (126-e)
		q := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && q&1 == 1 {
			q++
		}
		return F16(sign | uint16(q))
	default: // below half the smallest subnormal: ±0
		return F16(sign)
	}
}

// Float32 returns h as a float32 (exact).
func (h F16) Float32() float32 {
	sign := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1f
	m := uint32(h) & 0x3ff
	switch {
	case e == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0x7f800000 | m<<13)
	case e != 0:
		return math.Float32frombits(sign | (e+112)<<23 | m<<13)
	case m == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: m·2⁻²⁴, exact in float32.
	v := float32(m) * (1.0 / (1 << 24))
	return math.Float32frombits(sign | math.Float32bits(v))
}

// RoundF16 returns f rounded to the nearest FP16 value, as a float32.
func RoundF16(f float32) float32 { return FromFloat32F16(f).Float32() }

// RoundBF16s rounds every element of x to BF16 in place.
func RoundBF16s(x []float32) {
	for i, v := range x {
		x[i] = RoundBF16(v)
	}
}

// RoundF16s rounds every element of x to FP16 in place.
func RoundF16s(x []float32) {
	for i, v := range x {
		x[i] = RoundF16(v)
	}
}

// Epsilon values: the relative rounding error bound (half an ulp at 1) of
// each format, 2⁻⁸ for BF16 and 2⁻¹¹ for FP16.
const (
	EpsBF16 = 1.0 / 256
	EpsF16  = 1.0 / 2048
)

// MaxF16 is the largest finite FP16 value.
const MaxF16 = 65504
