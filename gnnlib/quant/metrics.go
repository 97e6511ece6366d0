package quant

import (
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Stats measures the error of an approximation x' of x.
type Stats struct {
	// MSE is the mean of (x − x')².
	MSE float64
	// SQNR is the signal-to-quantization-noise ratio in decibels,
	// 10·log10(Σx² / Σ(x − x')²); +Inf when x' equals x.
	SQNR float64
	// MaxAbs is the largest |x − x'|.
	MaxAbs float64
}

func (s Stats) String() string {
	return fmt.Sprintf("MSE %.3g, SQNR %.1f dB, max |err| %.3g", s.MSE, s.SQNR, s.MaxAbs)
}

// Compare returns the error statistics of approx against x; the two must
// have the same number of elements.
func Compare(x, approx *tensor.Tensor) (Stats, error) {
	a, b := x.Data(), approx.Data()
	if len(a) != len(b) {
		return Stats{}, fmt.Errorf("quant: compare %v with %v: %w", x.Shape(), approx.Shape(), ErrRange)
	}
	var sig, noise, mx float64
	for i, v := range a {
		d := float64(v) - float64(b[i])
		sig += float64(v) * float64(v)
		noise += d * d
		mx = math.Max(mx, math.Abs(d))
	}
	s := Stats{MaxAbs: mx, SQNR: math.Inf(1)}
	if len(a) > 0 {
		s.MSE = noise / float64(len(a))
	}
	if noise > 0 {
		s.SQNR = 10 * math.Log10(sig/noise)
	}
	return s, nil
}

// MSE returns the mean squared error between x and approx.
func MSE(x, approx *tensor.Tensor) (float64, error) {
	s, err := Compare(x, approx)
	return s.MSE, err
}

// SQNR returns the signal-to-quantization-noise ratio in dB.
func SQNR(x, approx *tensor.Tensor) (float64, error) {
	s, err := Compare(x, approx)
	return s.SQNR, err
}

// MaxAbsError returns the largest absolute difference.
func MaxAbsError(x, approx *tensor.Tensor) (float64, error) {
	s, err := Compare(x, approx)
	return s.MaxAbs, err
}

// Measure quantizes x with p, dequantizes it and compares the result with
// x.
func Measure(x *tensor.Tensor, p Params) (Stats, error) {
	y, err := RoundTrip(x, p)
	if err != nil {
		return Stats{}, err
	}
	return Compare(x, y)
}
