package quant

import (
	"sort"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// DegreeQuant configures the protective masking of Degree-Quant (Tailor,
// Fernandez-Marques and Lane, 2021). High in-degree nodes sum many
// messages, so their aggregates span the widest ranges and suffer most
// from a coarse grid; during QAT, each training step keeps node v in full
// precision with probability
//
//	p_v = PMin + (PMax − PMin)·rank(v)/(N−1)
//
// where rank orders nodes by in-degree, so the gradient of the weights is
// not dominated by the quantization noise of hubs. Inference quantizes all
// nodes. Degree-Quant pairs the masking with percentile ranges (set
// Config.Observer to a Percentile observer).
type DegreeQuant struct {
	// PMin and PMax bound the protection probability (0 and 0 mean 0
	// and 0.2).
	PMin, PMax float32
	// Seed seeds the masks.
	Seed int64
}

func (d *DegreeQuant) bounds() (float32, float32) {
	if d.PMin == 0 && d.PMax == 0 {
		return 0, 0.2
	}
	return d.PMin, d.PMax
}

// Probabilities returns p_v for every node of g from its in-degree rank.
func (d *DegreeQuant) Probabilities(g *graph.Graph) []float32 {
	lo, hi := d.bounds()
	deg := g.InDegrees()
	order := make([]int, len(deg))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return deg[order[a]] < deg[order[b]] })
	p := make([]float32, len(deg))
	den := float32(max(len(deg)-1, 1))
	for r, v := range order {
		p[v] = lo + (hi-lo)*float32(r)/den
	}
	return p
}

// DegreeMask draws one protection mask: keep[v] is true with probability
// p[v].
func DegreeMask(p []float32, rng *tensor.RNG) []bool {
	keep := make([]bool, len(p))
	for v, pv := range p {
		keep[v] = rng.Float32() < pv
	}
	return keep
}
