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
// (lin_query, lin_key, lin_value, lin_skip), the attention, out =
// attention + skip, and the gradients of the four weights and biases (x
// needs none). The four projections are one GEMM x·[W_q W_k W_v W_skip]
// with one bias pass; the attention reads their column blocks and adds
// the skip block as it stores each row (TransformerForwardFused); its
// backward writes dq, dk and dv into one N x 3HC buffer, so the weight
// gradients are two GEMMs (xᵀ·[dq dk dv] and xᵀ·dout). turbo_bench.py
// times turbo-gnn's graph_transformer_aggr with the same projections.
func tfLayer(d *cuda.Device, r *rand.Rand, g *csr, fin, h, c int) {
	check(d.EmptyCache())
	dg := g.upload(d)
	hc := h * c
	x := randT(d, r, g.n, fin, 1)
	w := randT(d, r, fin, 4*hc, float32(1/math.Sqrt(float64(fin))))
	b := randT(d, r, 1, 4*hc, 0.1)
	// The weight gradients: [dW_q dW_k dW_v] and dW_skip.
	dw3, dws := must(d.Empty(fin, 3*hc)), must(d.Empty(fin, hc))
	db3, dbs := must(d.Empty(1, 3*hc)), must(d.Empty(1, hc))
	dout := randT(d, r, g.n, hc, 1)
	scale := float32(1 / math.Sqrt(float64(c)))
	forward := func() (*cuda.Tensor, *cuda.Transformer) {
		qkvs := must(d.Empty(g.n, 4*hc))
		check(cuda.MatMul(qkvs, x, w, false, false))
		check(cuda.BiasAct(qkvs, qkvs, b, false, 0, 0))
		return qkvs, must(cuda.TransformerForwardFused(dg, qkvs, h, c, scale, cuda.AttentionDropout{}))
	}
	d.ResetPeak()
	step := func() {
		qkvs, a := forward()
		dqkv := must(d.Empty(g.n, 3*hc))
		check(a.BackwardFused(dg, qkvs, dout, dqkv))
		a.Free()
		qkvs.Free()
		check(cuda.MatMul(dw3, x, dqkv, true, false))
		check(cuda.ColSum(db3, dqkv))
		dqkv.Free()
		check(cuda.MatMul(dws, x, dout, true, false))
		check(cuda.ColSum(dbs, dout))
	}
	ms := timeit(d, step)
	peak := peakGiB(d)
	qkvs, a := forward()
	a.Free()
	fwd := timeit(d, func() { must(cuda.TransformerForwardFused(dg, qkvs, h, c, scale, cuda.AttentionDropout{})).Free() })
	gemm := timeit(d, func() { check(cuda.MatMul(qkvs, x, w, false, false)) })
	a = must(cuda.TransformerForwardFused(dg, qkvs, h, c, scale, cuda.AttentionDropout{}))
	dqkv := must(d.Empty(g.n, 3*hc))
	bwd := timeit(d, func() { check(a.BackwardFused(dg, qkvs, dout, dqkv)) })
	a.Free()
	report("transformer-layer", g.name, fmt.Sprintf("%dx%d", h, c), ms, peak,
		fmt.Sprintf("attention fwd %.3f ms, bwd %.3f ms (dst + src passes), x·[W_q W_k W_v W_skip] %.3f ms", fwd, bwd, gemm))
	for _, t := range []*cuda.Tensor{x, w, b, dw3, dws, db3, dbs, dout, qkvs, dqkv} {
		t.Free()
	}
	dg.Free()
}
