package quant

import (
	"errors"
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// ErrBits is wrapped by errors about an unsupported bit width.
var ErrBits = errors.New("quant: unsupported bit width")

// ErrRange is wrapped by errors about an empty or invalid range.
var ErrRange = errors.New("quant: invalid range")

// Scheme selects how a real range maps onto integer codes.
type Scheme int

const (
	// Symmetric maps [−α, α] onto [−qmax, qmax] with qmax = 2^(bits−1)−1
	// (127 for INT8, 7 for INT4): S = α/qmax, x_q = round(x/S), x' = x_q·S.
	// Zero maps to zero exactly, one code (−128 or −8) is left unused.
	Symmetric Scheme = iota
	// Affine (asymmetric) maps [β, α] onto the unsigned codes
	// [0, 2^bits−1]: S = (α−β)/255, Z = round(−β/S), x_q = round(x/S)+Z,
	// x' = (x_q−Z)·S for INT8 (15 in place of 255 for INT4).
	Affine
)

func (s Scheme) String() string {
	switch s {
	case Symmetric:
		return "symmetric"
	case Affine:
		return "affine"
	}
	return fmt.Sprintf("Scheme(%d)", int(s))
}

// PerTensor is the Axis of parameters shared by the whole tensor.
const PerTensor = -1

// Params are the quantization parameters of a tensor: the scale S and the
// textbook zero point Z of each channel (one entry when Axis is
// PerTensor). For the Symmetric scheme every Z is 0.
type Params struct {
	Bits   int
	Scheme Scheme
	// Axis is the channel axis of per-channel parameters, or PerTensor.
	Axis  int
	Scale []float32
	Zero  []int32
}

// checkBits returns an error unless bits is 4 or 8.
func checkBits(bits int) error {
	if bits != 8 && bits != 4 {
		return fmt.Errorf("quant: %d bits: %w", bits, ErrBits)
	}
	return nil
}

// QMin and QMax return the smallest and largest textbook codes: [−127, 127]
// and [−7, 7] for Symmetric, [0, 255] and [0, 15] for Affine.
func (p Params) QMin() int32 {
	if p.Scheme == Affine {
		return 0
	}
	return -p.qmaxSym()
}

// QMax returns the largest textbook code (see QMin).
func (p Params) QMax() int32 {
	if p.Scheme == Affine {
		return 1<<p.Bits - 1
	}
	return p.qmaxSym()
}

func (p Params) qmaxSym() int32 { return 1<<(p.Bits-1) - 1 }

// offset is what is subtracted from a textbook code to store it in a signed
// byte (or nibble): affine codes [0, 255] are stored as [−128, 127] so that
// both schemes share the int8 kernels.
func (p Params) offset() int32 {
	if p.Scheme == Affine {
		return 1 << (p.Bits - 1)
	}
	return 0
}

// Channels returns the number of (scale, zero) pairs.
func (p Params) Channels() int { return len(p.Scale) }

// Clip returns the real interval that channel c represents without
// clipping: [(QMin−Z)·S, (QMax−Z)·S].
func (p Params) Clip(c int) (lo, hi float32) {
	s, z := p.Scale[c], p.Zero[c]
	return float32(p.QMin()-z) * s, float32(p.QMax()-z) * s
}

// Grid returns the real values that channel c can represent, x' = (q−Z)·S
// for every code q, in increasing order: the quantization grid to draw
// over a histogram.
func (p Params) Grid(c int) []float32 {
	g := make([]float32, 0, p.QMax()-p.QMin()+1)
	for q := p.QMin(); q <= p.QMax(); q++ {
		g = append(g, float32(q-p.Zero[c])*p.Scale[c])
	}
	return g
}

func (p Params) String() string {
	axis := "per-tensor"
	if p.Axis != PerTensor {
		axis = fmt.Sprintf("per-channel(axis %d, %d channels)", p.Axis, len(p.Scale))
	}
	if len(p.Scale) == 1 {
		return fmt.Sprintf("INT%d %v %s S=%.4g Z=%d", p.Bits, p.Scheme, axis, p.Scale[0], p.Zero[0])
	}
	return fmt.Sprintf("INT%d %v %s", p.Bits, p.Scheme, axis)
}

// scaleZero computes S and Z for one channel from its observed range
// [lo, hi]. The range is first widened to hold 0, so that zero (ReLU
// outputs, padding) is represented exactly; a range of zero width gets
// S = 1 so that quantizing stays defined.
func scaleZero(s Scheme, bits int, lo, hi float32) (float32, int32) {
	lo = min(lo, 0)
	hi = max(hi, 0)
	if s == Symmetric {
		alpha := max(-lo, hi)
		if alpha == 0 {
			return 1, 0
		}
		return alpha / float32(int32(1)<<(bits-1)-1), 0 // S = α/127
	}
	if hi == lo {
		return 1, 0
	}
	qmax := int32(1)<<bits - 1
	scale := (hi - lo) / float32(qmax)                    // S = (α−β)/255
	z := int32(math.Round(float64(-lo) / float64(scale))) // Z = round(−β/S)
	return scale, min(max(z, 0), qmax)
}

// NewParams returns per-tensor parameters for the range [lo, hi]
// (lo = β, hi = α; for Symmetric α = max(|lo|, |hi|)).
func NewParams(s Scheme, bits int, lo, hi float32) (Params, error) {
	if err := checkBits(bits); err != nil {
		return Params{}, err
	}
	if !(lo <= hi) || math.IsInf(float64(hi-lo), 0) {
		return Params{}, fmt.Errorf("quant: range [%g, %g]: %w", lo, hi, ErrRange)
	}
	sc, z := scaleZero(s, bits, lo, hi)
	return Params{Bits: bits, Scheme: s, Axis: PerTensor, Scale: []float32{sc}, Zero: []int32{z}}, nil
}

// channelGeom returns the sizes around axis: element i of a row-major
// tensor belongs to channel (i/inner)%n.
func channelGeom(shape []int, axis int) (n, inner int) {
	if axis == PerTensor {
		return 1, 0
	}
	inner = 1
	for _, d := range shape[axis+1:] {
		inner *= d
	}
	return shape[axis], inner
}

// channelOf returns the channel of element i.
func channelOf(i, n, inner int) int {
	if inner == 0 {
		return 0
	}
	return (i / inner) % n
}

// ParamsFor computes parameters from the minimum and maximum of x, per
// tensor (axis PerTensor) or per channel along axis (0 for a convolution's
// [out, in, kh, kw] weight, 1 for a dense layer's [in, out] weight, which
// gnnlib/nn multiplies as x·W).
func ParamsFor(x *tensor.Tensor, s Scheme, bits, axis int) (Params, error) {
	if err := checkBits(bits); err != nil {
		return Params{}, err
	}
	shape := x.Shape()
	if axis < PerTensor || axis >= len(shape) {
		return Params{}, fmt.Errorf("quant: axis %d of shape %v: %w", axis, shape, ErrRange)
	}
	n, inner := channelGeom(shape, axis)
	lo := make([]float32, n)
	hi := make([]float32, n)
	for i := range lo {
		lo[i], hi[i] = float32(math.Inf(1)), float32(math.Inf(-1))
	}
	for i, v := range x.Data() {
		c := channelOf(i, n, inner)
		lo[c] = min(lo[c], v)
		hi[c] = max(hi[c], v)
	}
	p := Params{Bits: bits, Scheme: s, Axis: axis, Scale: make([]float32, n), Zero: make([]int32, n)}
	for c := range lo {
		if x.Len() == 0 {
			lo[c], hi[c] = 0, 0
		}
		p.Scale[c], p.Zero[c] = scaleZero(s, bits, lo[c], hi[c])
	}
	return p, nil
}

// QTensor is a quantized tensor: integer codes and their Params. INT8
// codes take one byte each; INT4 codes are packed two per byte (see
// PackInt4). Codes are stored signed: a Symmetric code as is, an Affine
// code minus 128 (INT8) or 8 (INT4); Codes returns the textbook values.
type QTensor struct {
	Params
	shape []int
	n     int
	data  []byte
}

// Shape returns the tensor's shape.
func (q *QTensor) Shape() []int { return append([]int(nil), q.shape...) }

// Len returns the number of elements.
func (q *QTensor) Len() int { return q.n }

// Bytes returns the storage size: the codes (one byte per INT8 value, half
// a byte per INT4 value) plus 8 bytes per channel for S and Z.
func (q *QTensor) Bytes() int { return len(q.data) + 8*len(q.Scale) }

// Packed returns the raw storage (aliased): one int8 per byte, or two
// INT4 codes per byte, low nibble first.
func (q *QTensor) Packed() []byte { return q.data }

// Int8s returns the stored signed codes, one per element (INT4 codes are
// unpacked into [−8, 7]).
func (q *QTensor) Int8s() []int8 {
	out := make([]int8, q.n)
	if q.Bits == 4 {
		UnpackInt4(out, q.data)
		return out
	}
	for i, b := range q.data {
		out[i] = int8(b)
	}
	return out
}

// Codes returns the textbook codes x_q (in [0, 255] for affine INT8).
func (q *QTensor) Codes() []int32 {
	s := q.Int8s()
	out := make([]int32, len(s))
	off := q.offset()
	for i, v := range s {
		out[i] = int32(v) + off
	}
	return out
}

// Quantize quantizes x with p: x_q = clamp(round(x/S) + Z, QMin, QMax).
// p's channel axis must fit x's shape.
func Quantize(x *tensor.Tensor, p Params) (*QTensor, error) {
	if err := checkBits(p.Bits); err != nil {
		return nil, err
	}
	shape := x.Shape()
	n, inner := 1, 0
	if p.Axis != PerTensor {
		if p.Axis >= len(shape) || shape[p.Axis] != len(p.Scale) {
			return nil, fmt.Errorf("quant: %d channels on axis %d of shape %v: %w", len(p.Scale), p.Axis, shape, ErrRange)
		}
		n, inner = channelGeom(shape, p.Axis)
	}
	if len(p.Scale) != n || len(p.Zero) != n {
		return nil, fmt.Errorf("quant: %d scales, %d zero points for %d channels: %w", len(p.Scale), len(p.Zero), n, ErrRange)
	}
	src := x.Data()
	codes := make([]int8, len(src))
	for c := 0; c < n; c++ {
		if inner == 0 {
			quantizeInto(codes, src, p, 0)
			break
		}
		// Walk the blocks of channel c.
		for start := c * inner; start < len(src); start += n * inner {
			quantizeInto(codes[start:start+inner], src[start:start+inner], p, c)
		}
	}
	q := &QTensor{Params: p, shape: shape, n: len(src)}
	if p.Bits == 4 {
		q.data = make([]byte, (len(codes)+1)/2)
		PackInt4(q.data, codes)
	} else {
		q.data = make([]byte, len(codes))
		for i, v := range codes {
			q.data[i] = byte(v)
		}
	}
	return q, nil
}

// quantizeInto writes the stored codes of x for channel c of p.
func quantizeInto(dst []int8, x []float32, p Params, c int) {
	inv := 1 / p.Scale[c]
	z := p.Zero[c] - p.offset()
	lo, hi := p.QMin()-p.offset(), p.QMax()-p.offset()
	for i, v := range x {
		dst[i] = int8(roundClamp(v*inv, z, lo, hi))
	}
}

// roundToInt32 rounds half away from zero, as math.Round does, saturating
// at ±2^30 so that huge values clamp instead of wrapping. Plain
// comparisons, not the min and max builtins: these handle NaN for
// float32 and cost a quarter of a GCN's integer inference.
func roundToInt32(v float32) int32 {
	const lim = 1 << 30
	if v >= 0 {
		if v >= lim {
			return lim
		}
		return int32(v + 0.5)
	}
	if v <= -lim {
		return -lim
	}
	return int32(v - 0.5)
}

// roundClamp returns min(max(roundToInt32(v)+z, lo), hi) for |z|, |lo|,
// |hi| ≤ 1024 without a data-dependent branch: the sign test of
// roundToInt32 mispredicts half the time on real activations, and this is
// the inner step of every requantization. v is first clamped to ±2048
// (far outside any code, so the result is the same) so that the
// conversion cannot overflow; NaN goes to lo, as it does through
// roundToInt32 on amd64.
func roundClamp(v float32, z, lo, hi int32) int32 {
	if v > 2048 {
		v = 2048
	}
	if !(v >= -2048) {
		v = -2048
	}
	half := math.Float32frombits(math.Float32bits(v)&(1<<31) | 0x3f000000) // ±0.5
	return min(max(int32(v+half)+z, lo), hi)
}

// round127 returns min(max(roundToInt32(v), −127), 127), the symmetric
// INT8 code of v, as roundClamp does but with the clamp done first in
// float32 (rounding is monotonic and ±127 are exact, so the order does not
// matter): the two comparisons rarely change v and are well predicted.
func round127(v float32) int32 {
	if v > 127 {
		v = 127
	}
	if !(v >= -127) {
		v = -127
	}
	return int32(v + math.Float32frombits(math.Float32bits(v)&(1<<31)|0x3f000000))
}

// Dequantize returns x' = (x_q − Z)·S for every element.
func (q *QTensor) Dequantize() *tensor.Tensor {
	codes := q.Int8s()
	out := make([]float32, len(codes))
	n, inner := channelGeom(q.shape, q.Axis)
	off := q.offset()
	for i, v := range codes {
		c := channelOf(i, n, inner)
		out[i] = float32(int32(v)+off-q.Zero[c]) * q.Scale[c]
	}
	return tensor.Wrap(out, q.shape...)
}

// RoundTrip quantizes and dequantizes x with p (fake quantization without
// autograd).
func RoundTrip(x *tensor.Tensor, p Params) (*tensor.Tensor, error) {
	q, err := Quantize(x, p)
	if err != nil {
		return nil, err
	}
	return q.Dequantize(), nil
}
