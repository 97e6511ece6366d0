package cuda

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// TestSoftmaxNLLBlockSum checks tune.LossBlockSum's kernel
// (softmax_nll_blk: the loss summed per block, one atomic add a block)
// against softmax_nll (one a row) on the device, with more rows than the
// grid has warps and unlabelled rows among them: the same gradient bit
// for bit, and losses that agree with each other and with a float64 sum
// within float32 rounding.
func TestSoftmaxNLLBlockSum(t *testing.T) {
	d := defaultOrSkip(t)
	defer func(on bool) { tune.LossBlockSum = on }(tune.LossBlockSum)
	const rows, cols = 200_000, 40
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, rows*cols)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	labels := make([]int, rows)
	count := 0
	for i := range labels {
		labels[i] = r.IntN(cols+1) - 1
		if labels[i] >= 0 {
			count++
		}
	}
	var want float64
	for i, l := range labels {
		if l < 0 {
			continue
		}
		row := x[i*cols : i*cols+cols]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, float64(v))
		}
		var s float64
		for _, v := range row {
			s += math.Exp(float64(v) - m)
		}
		want -= (float64(row[l]) - m - math.Log(s)) / float64(count)
	}
	dx, err := d.FromHost(x, rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	dl, err := NewLabels(d, labels)
	if err != nil {
		t.Fatal(err)
	}
	run := func(block bool) (float32, []float32) {
		tune.LossBlockSum = block
		grad, loss := poisoned(t, d, rows, cols), poisoned(t, d, 1, 1)
		if err := SoftmaxNLL(grad, loss, dx, dl); err != nil {
			t.Fatal(err)
		}
		l, err := loss.Host()
		if err != nil {
			t.Fatal(err)
		}
		g, err := grad.Host()
		if err != nil {
			t.Fatal(err)
		}
		return l[0], g
	}
	l0, g0 := run(false)
	l1, g1 := run(true)
	if !slices.Equal(g0, g1) {
		t.Error("softmax_nll_blk's gradient differs from softmax_nll's")
	}
	// softmax_nll adds 200,000 terms into one float32 (a random walk
	// of its rounding: about 1e-5 relative); softmax_nll_blk sums in
	// double per block and adds 4,224 block sums at most.
	for _, c := range []struct {
		name string
		got  float32
		tol  float64
	}{{"softmax_nll", l0, 1e-4}, {"softmax_nll_blk", l1, 1e-5}} {
		if e := math.Abs(float64(c.got)-want) / want; e > c.tol {
			t.Errorf("%s: loss %g, float64 sum %g (relative error %.3g, tolerance %g)", c.name, c.got, want, e, c.tol)
		}
	}
}
