package viz

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Embedding plots the rows of x (n×d; sparse tensors are densified) as a
// 2-D scatter of their first two principal components, coloured by
// labels (nil: one colour). With d = 2 the points are drawn as they are.
func Embedding(x *tensor.Tensor, labels []int) (*Figure, error) {
	if x == nil || x.Dims() != 2 {
		return nil, fmt.Errorf("%w: embedding needs an n×d tensor", ErrData)
	}
	if x.IsSparse() {
		x = x.ToDense()
	}
	return EmbeddingData(x.Data(), x.Size(0), x.Size(1), labels)
}

// EmbeddingData is Embedding for a row-major n×d slice.
func EmbeddingData(data []float32, n, d int, labels []int) (*Figure, error) {
	if n < 2 || d < 1 || len(data) != n*d {
		return nil, fmt.Errorf("%w: %d values for %d×%d points", ErrData, len(data), n, d)
	}
	if labels != nil && len(labels) != n {
		return nil, fmt.Errorf("%w: %d labels for %d points", ErrData, len(labels), n)
	}
	var xys plotter.XYs
	xl, yl := "x", "y"
	title := fmt.Sprintf("Embedding of %d points", n)
	switch d {
	case 1:
		xys = make(plotter.XYs, n)
		for i := range xys {
			xys[i] = plotter.XY{X: float64(data[i])}
		}
	case 2:
		xys = make(plotter.XYs, n)
		for i := range xys {
			xys[i] = plotter.XY{X: float64(data[2*i]), Y: float64(data[2*i+1])}
		}
	default:
		var frac [2]float64
		xys, frac = pca2(data, n, d)
		xl = fmt.Sprintf("PC1 (%.1f%% of variance)", 100*frac[0])
		yl = fmt.Sprintf("PC2 (%.1f%% of variance)", 100*frac[1])
		title = fmt.Sprintf("Embedding of %d points (PCA of %d dimensions)", n, d)
	}
	f := NewFigure(title, xl, yl)
	f.Description = title
	p := f.Plot()
	r := 2.0
	if n > 1000 {
		r = 1.3
	}
	if labels == nil {
		p.Add(points(xys, Color(0), r))
		return f, nil
	}
	k := 0
	for _, l := range labels {
		if l < 0 {
			return nil, fmt.Errorf("%w: negative label %d", ErrData, l)
		}
		k = max(k, l+1)
	}
	s := points(xys, Color(0), r)
	s.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		g := s.GlyphStyle
		g.Color = Color(labels[i])
		return g
	}
	p.Add(s)
	classLegend(p, k, r)
	f.LegendOutside = true // the points fill the plot: no corner is free
	f.Description += fmt.Sprintf(", %d classes", k)
	return f, nil
}

// pca2 projects the rows of data (n×d) on their two principal components
// by block power iteration on the covariance, which never forms the d×d
// matrix (Cora's features have d = 1433). It returns the projections and
// the fraction of the variance each component explains. Components are
// signed so that their largest coordinate is positive: the picture does
// not flip between runs.
func pca2(data []float32, n, d int) (plotter.XYs, [2]float64) {
	mean := make([]float64, d)
	for i := 0; i < n; i++ {
		for j, v := range data[i*d : (i+1)*d] {
			mean[j] += float64(v)
		}
	}
	var total float64
	for j := range mean {
		mean[j] /= float64(n)
	}
	for i := 0; i < n; i++ {
		for j, v := range data[i*d : (i+1)*d] {
			c := float64(v) - mean[j]
			total += c * c
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	v := [2][]float64{make([]float64, d), make([]float64, d)}
	for k := range v {
		for j := range v[k] {
			v[k][j] = rng.NormFloat64()
		}
	}
	orthonormalise(&v)
	proj := [2][]float64{make([]float64, n), make([]float64, n)}
	project := func() {
		for k := range v {
			mv := dotf(mean, v[k])
			for i := 0; i < n; i++ {
				row := data[i*d : (i+1)*d]
				var s float64
				for j, x := range row {
					s += float64(x) * v[k][j]
				}
				proj[k][i] = s - mv
			}
		}
	}
	for it := 0; it < 200; it++ {
		project()
		prev := [2][]float64{append([]float64(nil), v[0]...), append([]float64(nil), v[1]...)}
		for k := range v {
			clear(v[k])
			var ps float64
			for i := 0; i < n; i++ {
				p := proj[k][i]
				ps += p
				row := data[i*d : (i+1)*d]
				for j, x := range row {
					v[k][j] += float64(x) * p
				}
			}
			// Centring: Xcᵀp = Xᵀp − mean·Σp.
			for j := range v[k] {
				v[k][j] -= mean[j] * ps
			}
		}
		orthonormalise(&v)
		if math.Abs(dotf(prev[0], v[0])) > 1-1e-10 && math.Abs(dotf(prev[1], v[1])) > 1-1e-10 {
			break
		}
	}
	for k := range v {
		big := 0
		for j := range v[k] {
			if math.Abs(v[k][j]) > math.Abs(v[k][big]) {
				big = j
			}
		}
		if v[k][big] < 0 {
			for j := range v[k] {
				v[k][j] = -v[k][j]
			}
		}
	}
	project()
	xys := make(plotter.XYs, n)
	var frac [2]float64
	for i := range xys {
		xys[i] = plotter.XY{X: proj[0][i], Y: proj[1][i]}
		frac[0] += proj[0][i] * proj[0][i]
		frac[1] += proj[1][i] * proj[1][i]
	}
	if total > 0 {
		frac[0] /= total
		frac[1] /= total
	}
	return xys, frac
}

func dotf(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// orthonormalise applies Gram–Schmidt to the two vectors.
func orthonormalise(v *[2][]float64) {
	normalise(v[0])
	c := dotf(v[0], v[1])
	for j := range v[1] {
		v[1][j] -= c * v[0][j]
	}
	normalise(v[1])
}

func normalise(x []float64) {
	n := math.Sqrt(dotf(x, x))
	if n == 0 {
		return
	}
	for j := range x {
		x[j] /= n
	}
}
