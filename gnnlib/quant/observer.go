package quant

import (
	"math"
	"slices"
)

// An Observer watches the values a tensor takes on a calibration set and
// proposes the real range [lo, hi] to quantize it with. Observers are
// per-tensor; weights, which are known in advance, get per-channel
// ranges from ParamsFor instead.
type Observer interface {
	// Observe records one batch of values.
	Observe(x []float32)
	// Range returns the proposed range; (0, 0) before any Observe.
	Range() (lo, hi float32)
	// Reset forgets everything observed.
	Reset()
}

// ObserverParams turns an observer's range into per-tensor parameters.
func ObserverParams(o Observer, s Scheme, bits int) (Params, error) {
	lo, hi := o.Range()
	return NewParams(s, bits, lo, hi)
}

// MinMax proposes the smallest and largest value ever observed: no value
// is clipped, but one outlier stretches the grid for all.
type MinMax struct {
	lo, hi float32
	seen   bool
}

// Observe records x.
func (o *MinMax) Observe(x []float32) {
	for _, v := range x {
		if !o.seen {
			o.lo, o.hi, o.seen = v, v, true
		}
		o.lo = min(o.lo, v)
		o.hi = max(o.hi, v)
	}
}

// Range returns the observed extremes.
func (o *MinMax) Range() (lo, hi float32) { return o.lo, o.hi }

// Reset forgets the extremes.
func (o *MinMax) Reset() { *o = MinMax{} }

// MovingAverage proposes an exponential moving average of the batches'
// extremes, lo ← lo + m·(min(batch) − lo) (the first batch sets them),
// which damps outlier batches; it is the usual observer of QAT.
type MovingAverage struct {
	// Momentum m in (0, 1]; 0 means 0.1.
	Momentum float32
	lo, hi   float32
	seen     bool
}

// Observe records one batch.
func (o *MovingAverage) Observe(x []float32) {
	if len(x) == 0 {
		return
	}
	blo, bhi := x[0], x[0]
	for _, v := range x {
		blo = min(blo, v)
		bhi = max(bhi, v)
	}
	if !o.seen {
		o.lo, o.hi, o.seen = blo, bhi, true
		return
	}
	m := o.Momentum
	if m <= 0 || m > 1 {
		m = 0.1
	}
	o.lo += m * (blo - o.lo)
	o.hi += m * (bhi - o.hi)
}

// Range returns the averaged extremes.
func (o *MovingAverage) Range() (lo, hi float32) { return o.lo, o.hi }

// Reset forgets the averages.
func (o *MovingAverage) Reset() { o.lo, o.hi, o.seen = 0, 0, false }

// sampleCap bounds the values a sampling observer keeps: beyond it every
// other value is dropped, and the stride doubles, so memory stays bounded
// and the sample stays spread over all batches.
const sampleCap = 1 << 16

// sampler keeps an evenly strided sample of all observed values.
type sampler struct {
	vals   []float32
	stride int
	count  int
}

func (s *sampler) observe(x []float32) {
	if s.stride == 0 {
		s.stride = 1
	}
	for _, v := range x {
		if s.count%s.stride == 0 {
			s.vals = append(s.vals, v)
			if len(s.vals) >= sampleCap {
				// Keep every other value and halve the rate.
				for i := 0; 2*i < len(s.vals); i++ {
					s.vals[i] = s.vals[2*i]
				}
				s.vals = s.vals[:(len(s.vals)+1)/2]
				s.stride *= 2
			}
		}
		s.count++
	}
}

// Percentile proposes the range between the (100−P)-th and P-th
// percentiles of the observed values, clipping the rare extremes that
// would otherwise waste most of the grid (Degree-Quant uses it for
// aggregated GNN activations).
type Percentile struct {
	// P in (50, 100]; 0 means 99.9.
	P float64
	s sampler
}

// Observe records x.
func (o *Percentile) Observe(x []float32) { o.s.observe(x) }

// Range returns the percentiles.
func (o *Percentile) Range() (lo, hi float32) {
	if len(o.s.vals) == 0 {
		return 0, 0
	}
	p := o.P
	if p <= 50 || p > 100 {
		p = 99.9
	}
	v := slices.Clone(o.s.vals)
	slices.Sort(v)
	at := func(q float64) float32 {
		return v[int(math.Round(q/100*float64(len(v)-1)))]
	}
	return at(100 - p), at(p)
}

// Reset forgets the sample.
func (o *Percentile) Reset() { o.s = sampler{} }

// MSEOptimal proposes the range, among the observed range shrunk by
// factors 1, 0.95, 0.95², … down to 0.01, whose quantization with Scheme and Bits
// has the least mean squared error on the observed values: it trades the
// rounding error of a coarse grid against the clipping error of a narrow
// one, which pays off most at 4 bits.
type MSEOptimal struct {
	Scheme Scheme
	// Bits is 8 or 4; 0 means 8.
	Bits int
	s    sampler
}

// Observe records x.
func (o *MSEOptimal) Observe(x []float32) { o.s.observe(x) }

// Range searches the shrink factors.
func (o *MSEOptimal) Range() (lo, hi float32) {
	if len(o.s.vals) == 0 {
		return 0, 0
	}
	bits := o.Bits
	if bits == 0 {
		bits = 8
	}
	mlo, mhi := o.s.vals[0], o.s.vals[0]
	for _, v := range o.s.vals {
		mlo = min(mlo, v)
		mhi = max(mhi, v)
	}
	best := math.Inf(1)
	lo, hi = mlo, mhi
	for f := float32(1); f >= 0.01; f *= 0.95 {
		clo, chi := mlo*f, mhi*f
		p, err := NewParams(o.Scheme, bits, clo, chi)
		if err != nil {
			continue
		}
		if e := roundTripMSE(o.s.vals, p); e < best {
			best, lo, hi = e, clo, chi
		}
	}
	return lo, hi
}

// Reset forgets the sample.
func (o *MSEOptimal) Reset() { o.s = sampler{} }

// roundTripMSE returns the mean squared error of quantizing x with the
// per-tensor parameters p.
func roundTripMSE(x []float32, p Params) float64 {
	codes := make([]int8, len(x))
	quantizeInto(codes, x, p, 0)
	off := p.offset()
	var sum float64
	for i, v := range x {
		d := float64(v) - float64(float32(int32(codes[i])+off-p.Zero[0])*p.Scale[0])
		sum += d * d
	}
	return sum / float64(max(len(x), 1))
}
