package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// attnBF16Part times the fused attention layers in float32 and with the
// bfloat16 kernels side by side in one run, each variant's peak that of
// its own steps (issue 25: the arxiv-sized GATv2 layer 1x256 in bfloat16
// ≤ 2.2 ms, the TransformerConv layer 4x64 ≤ 4.5 ms, peaks ≤ 0.6x of
// float32).
func attnBF16Part(d *cuda.Device, r *rand.Rand, g *csr) {
	for _, c := range []struct{ h, ch int }{{1, 256}, {4, 64}} {
		gatLayerBF16(d, r, g, 128, c.h, c.ch)
	}
	// With -gatv2-variants edge, edge-lb3, nored, edge-red, auto and the
	// like, the GATv2 layers again with the edge-coefficient backward,
	// tune.GATv2DattBlock or tune.GATv2EdgeAuto (edgeVariant); the
	// kernel variants (lb3, lb4) are timed by the attention alone.
	for _, v := range gatv2Variants() {
		if edge := edgeVariant(v); v == "" || (!edge && variantBase(v) != "") {
			continue
		}
		kernTag = " [" + v + "]"
		for _, c := range []struct{ h, ch int }{{1, 256}, {4, 64}} {
			gatLayerBF16(d, r, g, 128, c.h, c.ch)
		}
	}
	edgeVariant("")
	kernTag = ""
	tfLayerBF16(d, r, g, 128, 4, 64)
}

// tfLayerBF16 is tfLayer's step (one GEMM x·[W_q W_k W_v W_skip] and its
// bias, the fused attention with the skip block, its backward pass and
// the weight gradients) in float32 and in bfloat16 (x, W, the product,
// the output, dOut and dqkv in bfloat16, the GEMMs on the tensor cores,
// the bias and weight gradients float32), both without tfLayer's two
// bias column sums (there is no exported bfloat16 column sum).
func tfLayerBF16(d *cuda.Device, r *rand.Rand, g *csr, fin, h, c int) {
	check(d.EmptyCache())
	dg := g.upload(d)
	hc := h * c
	x := randT(d, r, g.n, fin, 1)
	w := randT(d, r, fin, 4*hc, float32(1/math.Sqrt(float64(fin))))
	b := randT(d, r, 1, 4*hc, 0.1)
	dw3, dws := must(d.Empty(fin, 3*hc)), must(d.Empty(fin, hc))
	dout := randT(d, r, g.n, hc, 1)
	scale := float32(1 / math.Sqrt(float64(c)))
	f32 := func() {
		qkvs := must(d.Empty(g.n, 4*hc))
		check(cuda.MatMul(qkvs, x, w, false, false))
		check(cuda.BiasAct(qkvs, qkvs, b, false, 0, 0))
		a := must(cuda.TransformerForwardFused(dg, qkvs, h, c, scale, cuda.AttentionDropout{}))
		dqkv := must(d.Empty(g.n, 3*hc))
		check(a.BackwardFused(dg, qkvs, dout, dqkv))
		a.Free()
		qkvs.Free()
		check(cuda.MatMul(dw3, x, dqkv, true, false))
		dqkv.Free()
		check(cuda.MatMul(dws, x, dout, true, false))
	}
	var ms, peak [2]float64
	check(d.EmptyCache())
	d.ResetPeak()
	ms[0] = timeit(d, f32)
	peak[0] = peakGiB(d)
	x16, w16, dout16 := must(cuda.ToBF16(x)), must(cuda.ToBF16(w)), must(cuda.ToBF16(dout))
	for _, t := range []*cuda.Tensor{x, w, dout} {
		t.Free()
	}
	bf := func() {
		qkvs := must(d.EmptyBF16(g.n, 4*hc))
		check(cuda.MatMulBF16Out(qkvs, x16, w16, false, false))
		check(cuda.BiasActBF16(qkvs, qkvs, b, false, 0, 0))
		a := must(cuda.TransformerForwardFusedBF16(dg, qkvs, h, c, scale, cuda.AttentionDropout{}))
		dqkv := must(d.EmptyBF16(g.n, 3*hc))
		check(a.BackwardFusedBF16(dg, qkvs, dout16, dqkv))
		a.Free()
		qkvs.Free()
		check(cuda.MatMulBF16(dw3, x16, dqkv, true, false))
		dqkv.Free()
		check(cuda.MatMulBF16(dws, x16, dout16, true, false))
	}
	bf()
	check(d.EmptyCache())
	d.ResetPeak()
	ms[1] = timeit(d, bf)
	peak[1] = peakGiB(d)
	// The attention alone on the same (rounded) product.
	qkvs16 := must(d.EmptyBF16(g.n, 4*hc))
	check(cuda.MatMulBF16Out(qkvs16, x16, w16, false, false))
	qkvs, dout := must(qkvs16.Float32()), must(dout16.Float32())
	dqkv, dqkv16 := must(d.Empty(g.n, 3*hc)), must(d.EmptyBF16(g.n, 3*hc))
	// attn times the attention's forward and backward passes.
	attn := func() (fwd32, fwd16, bwd32, bwd16 float64) {
		fwd32 = timeit(d, func() { must(cuda.TransformerForwardFused(dg, qkvs, h, c, scale, cuda.AttentionDropout{})).Free() })
		fwd16 = timeit(d, func() {
			must(cuda.TransformerForwardFusedBF16(dg, qkvs16, h, c, scale, cuda.AttentionDropout{})).Free()
		})
		a32 := must(cuda.TransformerForwardFused(dg, qkvs, h, c, scale, cuda.AttentionDropout{}))
		a16 := must(cuda.TransformerForwardFusedBF16(dg, qkvs16, h, c, scale, cuda.AttentionDropout{}))
		bwd32 = timeit(d, func() { check(a32.BackwardFused(dg, qkvs, dout, dqkv)) })
		bwd16 = timeit(d, func() { check(a16.BackwardFusedBF16(dg, qkvs16, dout16, dqkv16)) })
		a32.Free()
		a16.Free()
		return
	}
	fwd32, fwd16, bwd32, bwd16 := attn()
	// And without the edge-index prefetch (tune.AttnPrefetch off).
	if *prefetchAB {
		tune.AttnPrefetch = false
		f32, f16, b32, b16 := attn()
		tune.AttnPrefetch = true
		report("tf-attn-nopf", g.name, fmt.Sprintf("%dx%d without prefetch", h, c), f16+b16, 0,
			fmt.Sprintf("float32 fwd %.3f, bwd %.3f ms (%.2fx, %.2fx of with); bfloat16 fwd %.3f, bwd %.3f ms (%.2fx, %.2fx)",
				f32, b32, f32/fwd32, b32/bwd32, f16, b16, f16/fwd16, b16/bwd16))
	}
	v := fmt.Sprintf("%dx%d", h, c)
	report("transformer-layer-bf16", g.name, v+" float32", ms[0], peak[0], fmt.Sprintf("attention fwd %.3f ms, bwd %.3f ms (no bias column sums)", fwd32, bwd32))
	report("transformer-layer-bf16", g.name, v+" bfloat16", ms[1], peak[1], fmt.Sprintf("attention fwd %.3f ms, bwd %.3f ms (no bias column sums)", fwd16, bwd16))
	report("transformer-layer-bf16", g.name, v+" bfloat16 vs float32", ms[1], peak[1],
		fmt.Sprintf("speedup %.2fx, attention fwd %.2fx, bwd %.2fx; peak %.2fx of float32 (targets at 4x64: <= 4.5 ms, <= 0.6x)",
			ms[0]/ms[1], fwd32/fwd16, bwd32/bwd16, peak[1]/peak[0]))
	for _, t := range []*cuda.Tensor{b, dw3, dws, qkvs, dout, dqkv} {
		t.Free()
	}
	for _, t := range []*cuda.BF16Tensor{x16, w16, dout16, qkvs16, dqkv16} {
		t.Free()
	}
	dg.Free()
}

// attnMS is an attention's forward pass, destination backward pass and
// both backward passes, in ms.
type attnMS struct{ fwd, dst, bwd float64 }

// variantLine is a variant's report: its attention in float32 and
// bfloat16 (v32, v16) beside the current kernels' (c32, c16).
func variantLine(v32, c32, v16, c16 attnMS, line func(attnMS) string) string {
	return fmt.Sprintf("float32 %s (of current: fwd %.2fx, dst %.2fx, src %.2fx); bfloat16 %s (fwd %.2fx, dst %.2fx, src %.2fx)",
		line(v32), v32.fwd/c32.fwd, v32.dst/c32.dst, (v32.bwd-v32.dst)/(c32.bwd-c32.dst),
		line(v16), v16.fwd/c16.fwd, v16.dst/c16.dst, (v16.bwd-v16.dst)/(c16.bwd-c16.dst))
}

// gatLayerBF16 is gatLayer's step (x·W_l, x·W_r, the fused attention, its
// two backward passes and the weight gradients, one N x HC gradient
// buffer reused) in float32 and in bfloat16: x, the weights, x_l, x_r,
// the output, dOut and the gradient buffer in bfloat16, the GEMMs on the
// tensor cores (MatMulBF16Out, MatMulBF16 for the float32 weight
// gradients), the attention in its _bf16 kernels, att and its gradient
// float32.
func gatLayerBF16(d *cuda.Device, r *rand.Rand, g *csr, fin, h, c int) {
	defer func(w bool) { cuda.BF16WideLoads = w }(cuda.BF16WideLoads)
	check(d.EmptyCache())
	dg := g.upload(d)
	hc := h * c
	x := randT(d, r, g.n, fin, 1)
	wl := randT(d, r, fin, hc, float32(1/math.Sqrt(float64(fin))))
	wr := randT(d, r, fin, hc, float32(1/math.Sqrt(float64(fin))))
	att := randT(d, r, 1, hc, 0.1)
	dout := randT(d, r, g.n, hc, 1)
	dwl, dwr := must(d.Empty(fin, hc)), must(d.Empty(fin, hc))
	datt := must(d.Empty(1, hc))
	f32 := func() {
		xl, xr := must(d.Empty(g.n, hc)), must(d.Empty(g.n, hc))
		check(cuda.MatMul(xl, x, wl, false, false))
		check(cuda.MatMul(xr, x, wr, false, false))
		a := must(cuda.GATv2ForwardLR(dg, xl, xr, att, h, c, 0.2, cuda.AttentionDropout{}))
		dxh := must(d.Empty(g.n, hc))
		// The edge-coefficient backward runs its source pass first.
		inPassOrder(a.SourceFirst(), func() {
			check(a.BackwardSrc(dg, xl, xr, att, dout, dxh))
			check(cuda.MatMul(dwl, x, dxh, true, false))
		}, func() {
			check(a.BackwardDst(dg, xl, xr, att, dout, dxh, datt))
			check(cuda.MatMul(dwr, x, dxh, true, false))
		})
		a.Free()
		xl.Free()
		xr.Free()
		dxh.Free()
	}
	var ms, peak [2]float64
	check(d.EmptyCache())
	d.ResetPeak()
	ms[0] = timeit(d, f32)
	peak[0] = peakGiB(d)
	// The bfloat16 step holds bfloat16 copies of x, the weights and dOut
	// instead of the float32 ones (each variant's peak counts its own).
	x16, wl16, wr16, dout16 := must(cuda.ToBF16(x)), must(cuda.ToBF16(wl)), must(cuda.ToBF16(wr)), must(cuda.ToBF16(dout))
	for _, t := range []*cuda.Tensor{x, wl, wr, dout} {
		t.Free()
	}
	bf := func() {
		xl, xr := must(d.EmptyBF16(g.n, hc)), must(d.EmptyBF16(g.n, hc))
		check(cuda.MatMulBF16Out(xl, x16, wl16, false, false))
		check(cuda.MatMulBF16Out(xr, x16, wr16, false, false))
		a := must(cuda.GATv2ForwardBF16(dg, xl, xr, att, h, c, 0.2, cuda.AttentionDropout{}))
		dxh := must(d.EmptyBF16(g.n, hc))
		inPassOrder(a.SourceFirst(), func() {
			check(a.BackwardSrcBF16(dg, xl, xr, att, dout16, dxh))
			check(cuda.MatMulBF16(dwl, x16, dxh, true, false))
		}, func() {
			check(a.BackwardDstBF16(dg, xl, xr, att, dout16, dxh, datt))
			check(cuda.MatMulBF16(dwr, x16, dxh, true, false))
		})
		a.Free()
		xl.Free()
		xr.Free()
		dxh.Free()
	}
	bf() // loads the bfloat16 modules before the timing
	check(d.EmptyCache())
	d.ResetPeak()
	ms[1] = timeit(d, bf)
	peak[1] = peakGiB(d)
	// The attention alone, forward and backward, in each precision, on
	// the same (rounded) features.
	xl16, xr16 := must(d.EmptyBF16(g.n, hc)), must(d.EmptyBF16(g.n, hc))
	check(cuda.MatMulBF16Out(xl16, x16, wl16, false, false))
	check(cuda.MatMulBF16Out(xr16, x16, wr16, false, false))
	xl, xr, dout := must(xl16.Float32()), must(xr16.Float32()), must(dout16.Float32())
	dxh, dxh16 := must(d.Empty(g.n, hc)), must(d.EmptyBF16(g.n, hc))
	// attn times the forward pass and the two backward passes
	// (backwardParts).
	attn := func(bf16 bool) (t attnMS) {
		fw := func() *cuda.GATv2 {
			if bf16 {
				return must(cuda.GATv2ForwardBF16(dg, xl16, xr16, att, h, c, 0.2, cuda.AttentionDropout{}))
			}
			return must(cuda.GATv2ForwardLR(dg, xl, xr, att, h, c, 0.2, cuda.AttentionDropout{}))
		}
		dst := func(a *cuda.GATv2) {
			if bf16 {
				check(a.BackwardDstBF16(dg, xl16, xr16, att, dout16, dxh16, datt))
			} else {
				check(a.BackwardDst(dg, xl, xr, att, dout, dxh, datt))
			}
		}
		src := func(a *cuda.GATv2) {
			if bf16 {
				check(a.BackwardSrcBF16(dg, xl16, xr16, att, dout16, dxh16))
			} else {
				check(a.BackwardSrc(dg, xl, xr, att, dout, dxh))
			}
		}
		t.fwd = timeit(d, func() { fw().Free() })
		var srcMS float64
		t.dst, srcMS = backwardParts(d, fw, t.fwd, dst, src)
		t.bwd = t.dst + srcMS
		return t
	}
	// The attention alone in each precision on the same (rounded)
	// features: float32; bfloat16 in each lane layout (cuda.BF16WideLoads:
	// 16- or 8-byte loads; the same kernels at widths without a wide
	// one); and, for each -gatv2-variants value the width has, that
	// variant (tune.GATv2Variant), and with -prefetch-ab the kernels
	// without the edge-index prefetch, in both precisions.
	v := fmt.Sprintf("%dx%d", h, c)
	cuda.BF16WideLoads = false
	a32, a16 := attn(false), attn(true)
	cuda.BF16WideLoads = true
	a16w := attn(true)
	cuda.BF16WideLoads = false
	line := func(t attnMS) string {
		return fmt.Sprintf("attention fwd %.3f ms, bwd %.3f ms (dst %.3f + src %.3f)", t.fwd, t.bwd, t.dst, t.bwd-t.dst)
	}
	report("gatv2-layer-bf16", g.name, v+" float32", ms[0], peak[0], line(a32))
	report("gatv2-layer-bf16", g.name, v+" bfloat16", ms[1], peak[1], line(a16)+"; 16-byte loads: "+line(a16w))
	report("gatv2-layer-bf16", g.name, v+" bfloat16 vs float32", ms[1], peak[1],
		fmt.Sprintf("speedup %.2fx, attention fwd %.2fx, bwd %.2fx; peak %.2fx of float32 (targets at 1x256: <= 2.2 ms, <= 0.6x)",
			ms[0]/ms[1], a32.fwd/a16.fwd, a32.bwd/a16.bwd, peak[1]/peak[0]))
	defer func(v string) { tune.GATv2Variant = v }(tune.GATv2Variant)
	for _, vr := range gatv2Variants() {
		if vr == "" || !slices.Contains(tune.GATv2Variants[c], vr) {
			continue // the current kernels, timed above
		}
		tune.GATv2Variant = vr
		l32, l16 := attn(false), attn(true)
		report("gatv2-attn-variant", g.name, v+" "+vr, l16.fwd+l16.bwd, 0, variantLine(l32, a32, l16, a16, line))
	}
	tune.GATv2Variant = ""
	if *prefetchAB {
		tune.AttnPrefetch = false
		l32, l16 := attn(false), attn(true)
		tune.AttnPrefetch = true
		report("gatv2-attn-variant", g.name, v+" without prefetch", l16.fwd+l16.bwd, 0, variantLine(l32, a32, l16, a16, line))
	}
	for _, t := range []*cuda.Tensor{att, dwl, dwr, datt, xl, xr, dout, dxh} {
		t.Free()
	}
	for _, t := range []*cuda.BF16Tensor{x16, wl16, wr16, dout16, xl16, xr16, dxh16} {
		t.Free()
	}
	dg.Free()
}
