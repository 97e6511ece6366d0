package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
)

// tfLayer times one TransformerConv layer forward and backward as PyG's
// TransformerConv(fin, c, heads=h) computes it (concat, root weight, no
// beta gate, no edge features): q, k, v and the skip term are x·W + b
// (lin_query, lin_key, lin_value, lin_skip), the fused attention, out =
// attention + skip, and the gradients of the four weights and biases (x
// needs none). turbo_bench.py times turbo-gnn's graph_transformer_aggr
// with the same projections.
func tfLayer(d *cuda.Device, r *rand.Rand, g *csr, fin, h, c int) {
	check(d.EmptyCache())
	dg := g.upload(d)
	hc := h * c
	x := randT(d, r, g.n, fin, 1)
	var w, b, dw, db [4]*cuda.Tensor
	for i := range w {
		w[i] = randT(d, r, fin, hc, float32(1/math.Sqrt(float64(fin))))
		b[i] = randT(d, r, 1, hc, 0.1)
		dw[i], db[i] = must(d.Empty(fin, hc)), must(d.Empty(1, hc))
	}
	dout := randT(d, r, g.n, hc, 1)
	scale := float32(1 / math.Sqrt(float64(c)))
	proj := func(i int) *cuda.Tensor {
		y := must(d.Empty(g.n, hc))
		check(cuda.MatMul(y, x, w[i], false, false))
		check(cuda.BiasAct(y, y, b[i], false, 0, 0))
		return y
	}
	d.ResetPeak()
	step := func() {
		q, k, v := proj(0), proj(1), proj(2)
		a := must(cuda.TransformerForward(dg, q, k, v, h, c, scale, cuda.AttentionDropout{}))
		skip := proj(3)
		check(cuda.Axpby(a.Out, 1, skip, 1))
		skip.Free()
		var grads [3]*cuda.Tensor
		for i := range grads {
			grads[i] = must(d.Empty(g.n, hc))
		}
		check(a.Backward(dg, q, k, v, dout, grads[0], grads[1], grads[2]))
		a.Free()
		for i, gr := range grads {
			check(cuda.MatMul(dw[i], x, gr, true, false))
			check(cuda.ColSum(db[i], gr))
			gr.Free()
		}
		check(cuda.MatMul(dw[3], x, dout, true, false))
		check(cuda.ColSum(db[3], dout))
		q.Free()
		k.Free()
		v.Free()
	}
	ms := timeit(d, step)
	peak := peakGiB(d)
	q, k, v := proj(0), proj(1), proj(2)
	fwd := timeit(d, func() { must(cuda.TransformerForward(dg, q, k, v, h, c, scale, cuda.AttentionDropout{})).Free() })
	a := must(cuda.TransformerForward(dg, q, k, v, h, c, scale, cuda.AttentionDropout{}))
	var grads [3]*cuda.Tensor
	for i := range grads {
		grads[i] = must(d.Empty(g.n, hc))
	}
	bwd := timeit(d, func() { check(a.Backward(dg, q, k, v, dout, grads[0], grads[1], grads[2])) })
	a.Free()
	report("transformer-layer", g.name, fmt.Sprintf("%dx%d", h, c), ms, peak,
		fmt.Sprintf("attention fwd %.3f ms, bwd %.3f ms (dst + src passes)", fwd, bwd))
	for _, t := range append([]*cuda.Tensor{x, dout, q, k, v, grads[0], grads[1], grads[2]}, append(append(w[:], b[:]...), append(dw[:], db[:]...)...)...) {
		t.Free()
	}
	dg.Free()
}
