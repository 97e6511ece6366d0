package prof

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/internal/parallel"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Peaks are a machine's measured ceilings, for rooflines.
type Peaks struct {
	// GBs is the copy bandwidth in GB/s (10^9 bytes, read plus write).
	GBs float64
	// GFLOPs is the matrix-product rate in GFLOP/s.
	GFLOPs float64
}

// Ridge returns the arithmetic intensity (FLOP/byte) where the
// bandwidth roof meets the compute roof.
func (p Peaks) Ridge() float64 {
	if p.GBs == 0 {
		return 0
	}
	return p.GFLOPs / p.GBs
}

// String formats the peaks.
func (p Peaks) String() string {
	return fmt.Sprintf("copy %.1f GB/s, matmul %.1f GFLOP/s, ridge %.2f FLOP/B", p.GBs, p.GFLOPs, p.Ridge())
}

// StreamCopy measures the memory bandwidth in GB/s by copying a buffer of
// size bytes (0 means 64 MiB, well past the caches) on tensor.Threads()
// goroutines, counting each byte read and written. It returns the best of
// o's repeats, the usual convention for a peak.
func StreamCopy(size int, o Options) float64 {
	if size <= 0 {
		size = 64 << 20
	}
	n := size / 4
	src, dst := make([]float32, n), make([]float32, n)
	for i := range src {
		src[i] = float32(i)
	}
	t := tensor.Threads()
	st := Time(func() {
		// One range per thread: grain n/t makes parallel.For cut t of them.
		parallel.For(n, max(1, n/t), func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
	}, o)
	return 2 * float64(n) * 4 / st.Min.Seconds() / 1e9
}

// MatMulProbe measures the compute rate in GFLOP/s with an n×n matrix
// product (0 means 512) through the tensor package's kernel, counting
// 2n³ FLOPs. It returns the best of o's repeats.
func MatMulProbe(n int, o Options) float64 {
	if n <= 0 {
		n = 512
	}
	a := tensor.Rand(1, n, n).Data()
	b := tensor.Rand(2, n, n).Data()
	c := make([]float32, n*n)
	st := Time(func() { tensor.MatMulInto(c, a, b, n, n, n) }, o)
	return 2 * float64(n) * float64(n) * float64(n) / st.Min.Seconds() / 1e9
}

// MeasurePeaks runs StreamCopy and MatMulProbe with default sizes.
func MeasurePeaks() Peaks {
	o := Options{Warmup: 1, Repeats: 5}
	return Peaks{GBs: StreamCopy(0, o), GFLOPs: MatMulProbe(0, o)}
}

// Attainment is an op's attained rates against the machine's peaks.
type Attainment struct {
	Op string
	// Intensity is FLOPs per byte moved.
	Intensity float64
	// GFLOPs and GBs are the attained rates.
	GFLOPs, GBs float64
	// Roof is the rate the roofline allows at this intensity,
	// min(peak GFLOP/s, intensity × peak GB/s).
	Roof float64
	// OfRoof is GFLOPs/Roof: how close the op comes to what the machine
	// allows it.
	OfRoof float64
	// MemoryBound is true left of the ridge point.
	MemoryBound bool
}

// String formats the attainment, e.g.
// "MatMul: 41.2 GFLOP/s, 3.1 GB/s, 38% of roof (compute bound)".
func (a Attainment) String() string {
	bound := "compute bound"
	if a.MemoryBound {
		bound = "memory bound"
	}
	return fmt.Sprintf("%s: %.3g GFLOP/s, %.3g GB/s, %.0f%% of roof (%s)", a.Op, a.GFLOPs, a.GBs, 100*a.OfRoof, bound)
}

// Attained compares an op row's attained rates with peaks.
func Attained(r OpRow, p Peaks) Attainment {
	a := Attainment{Op: r.Name(), Intensity: r.Intensity(), GFLOPs: r.GFLOPs(), GBs: r.GBs()}
	a.Roof = min(p.GFLOPs, a.Intensity*p.GBs)
	if a.Roof > 0 {
		a.OfRoof = a.GFLOPs / a.Roof
	}
	a.MemoryBound = a.Intensity < p.Ridge()
	return a
}
