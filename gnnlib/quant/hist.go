package quant

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Distribution is the data of a plot of a tensor's values against its
// quantization grid: a histogram (Counts[i] values fall in
// [Edges[i], Edges[i+1]), the last bin closed) and the real values the
// codes represent (Grid, for channel 0 of per-channel parameters).
type Distribution struct {
	Edges  []float64
	Counts []int
	Grid   []float64
	// Clip is the representable range [lo, hi].
	Clip [2]float64
}

// Histogram bins x's values into bins equal bins over the union of their
// range and p's clipping range, and lists p's grid.
func Histogram(x *tensor.Tensor, p Params, bins int) (Distribution, error) {
	if bins < 1 {
		return Distribution{}, fmt.Errorf("quant: Histogram with %d bins: %w", bins, ErrRange)
	}
	if len(p.Scale) == 0 {
		return Distribution{}, fmt.Errorf("quant: Histogram without parameters: %w", ErrRange)
	}
	clo, chi := p.Clip(0)
	lo, hi := float64(clo), float64(chi)
	vals := x.Data()
	for _, v := range vals {
		lo, hi = min(lo, float64(v)), max(hi, float64(v))
	}
	if hi == lo {
		hi = lo + 1
	}
	d := Distribution{Edges: make([]float64, bins+1), Counts: make([]int, bins), Clip: [2]float64{float64(clo), float64(chi)}}
	w := (hi - lo) / float64(bins)
	for i := range d.Edges {
		d.Edges[i] = lo + float64(i)*w
	}
	d.Edges[bins] = hi
	for _, v := range vals {
		b := min(int((float64(v)-lo)/w), bins-1)
		d.Counts[b]++
	}
	for _, g := range p.Grid(0) {
		d.Grid = append(d.Grid, float64(g))
	}
	return d, nil
}

// WeightDistribution returns the distribution of weighted layer i's
// weights (in model order) against its quantization grid: per-tensor
// parameters so that one grid spans the whole histogram.
func (s *Sequential) WeightDistribution(i, bins int) (Distribution, error) {
	var ls []*qlayer
	for _, st := range s.steps {
		if st.q != nil {
			ls = append(ls, st.q)
		}
	}
	return layerDistribution(ls, i, bins, s.cfg)
}

// WeightDistribution returns the distribution of layer i's weights.
func (m *GNN) WeightDistribution(i, bins int) (Distribution, error) {
	return layerDistribution(m.layers, i, bins, m.cfg)
}

func layerDistribution(ls []*qlayer, i, bins int, cfg Config) (Distribution, error) {
	if i < 0 || i >= len(ls) {
		return Distribution{}, fmt.Errorf("quant: layer %d of %d: %w", i, len(ls), ErrRange)
	}
	p, err := ParamsFor(ls[i].w, Symmetric, cfg.bits(), PerTensor)
	if err != nil {
		return Distribution{}, err
	}
	return Histogram(ls[i].w, p, bins)
}

// ActivationDistribution returns the histogram of the observer's sample
// (Percentile and MSEOptimal keep one) against p's grid.
func ActivationDistribution(o Observer, p Params, bins int) (Distribution, error) {
	var vals []float32
	switch t := o.(type) {
	case *Percentile:
		vals = t.s.vals
	case *MSEOptimal:
		vals = t.s.vals
	default:
		return Distribution{}, fmt.Errorf("quant: %T keeps no sample (use Percentile or MSEOptimal): %w", o, ErrUnsupported)
	}
	return Histogram(tensor.FromSlice(vals, len(vals)), p, bins)
}
