package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// roofline returns the device's dense BF16 tensor-core peak (FLOP/s) and
// HBM bandwidth (bytes/s) by its name, or zeros for a GPU not listed.
// H200: the ~790 TFLOP/s the issue quotes and 4.8 TB/s; H100 SXM: 989
// TFLOP/s dense and 3.35 TB/s (NVIDIA's data sheets).
func roofline(desc string) (flops, bw float64) {
	switch {
	case strings.Contains(desc, "H200"):
		return 790e12, 4.8e12
	case strings.Contains(desc, "H100"):
		return 989e12, 3.35e12
	}
	return 0, 0
}

// pctRoof formats the share of the roofline time (the larger of the
// compute and the memory time) in the measured ms.
func pctRoof(desc string, flop, bytes, ms float64) string {
	peak, bw := roofline(desc)
	if peak == 0 {
		return ""
	}
	roof := max(flop/peak, bytes/bw) * 1e3
	bound := "compute"
	if bytes/bw > flop/peak {
		bound = "memory"
	}
	return fmt.Sprintf(", %.0f%% of roofline (%s-bound, %.3f ms)", 100*roof/ms, bound, roof)
}

// bf16Kerns lists the tensor-core GEMM kernels (tune.GEMMBF16Kernel) the
// bf16 part times side by side on the same operands.
var bf16Kerns = flag.String("bf16-gemm", "pipe,reg", "comma-separated tensor-core GEMM kernels of the bf16 part (pipe, reg)")

// timeDev runs fn once to warm up, then reps times between the device's
// timing events, and returns the median device time in milliseconds: the
// kernels' time without the host's launch and synchronisation overhead,
// which timeit's wall clock includes (about 10-20 µs, a sixth of the
// roofline time of the smallest products here).
func timeDev(d *cuda.Device, fn func()) float64 {
	fn()
	check(d.Synchronize())
	ts := make([]float64, *reps)
	for i := range ts {
		check(d.StartTimer())
		fn()
		dt := must(d.StopTimer())
		ts[i] = float64(dt.Nanoseconds()) / 1e6
	}
	slices.Sort(ts)
	return ts[len(ts)/2]
}

// bf16Part times the tensor-core BF16 GEMM against the FP32 GEMM at the
// gemm part's shapes (the products-sized ones too, whatever -products
// says: they need no graph) and a square one, each -bf16-gemm kernel on
// the same operands (rounded), with its share of the roofline; and the
// BF16 SpMM against the FP32 one on the arxiv-sized graph, in one run.
func bf16Part(d *cuda.Device, r *rand.Rand, gs []*csr) {
	check(d.EmptyCache())
	desc := d.String()
	var kerns []tune.GEMMBF16Kernel
	for _, k := range strings.Split(*bf16Kerns, ",") {
		kerns = append(kerns, tune.GEMMBF16Kernel(k))
	}
	defer func(k tune.GEMMBF16Kernel) { tune.GEMMBF16 = k }(tune.GEMMBF16)
	// The gemm part's shapes and a compute-bound square.
	shapes := append(slices.Clone(gemmShapes), gemmShape{"square 8192x8192·8192x8192", 8192, 8192, 8192, false, false})
	for _, c := range shapes {
		ar, ac := c.m, c.k
		if c.ta {
			ar, ac = ac, ar
		}
		br, bc := c.k, c.n
		if c.tb {
			br, bc = bc, br
		}
		a := randT(d, r, ar, ac, 1)
		b := randT(d, r, br, bc, 1)
		y := must(d.Empty(c.m, c.n))
		flop := 2 * float64(c.m) * float64(c.k) * float64(c.n)
		in, out := float64(ar*ac+br*bc), float64(c.m*c.n)
		ms32 := timeDev(d, func() { check(cuda.MatMul(y, a, b, c.ta, c.tb)) })
		report("gemm-fp32", "-", c.name, ms32, 0, fmt.Sprintf("%.1f TFLOP/s (device time)", flop/ms32/1e9))
		a16, b16 := must(cuda.ToBF16(a)), must(cuda.ToBF16(b))
		a.Free()
		b.Free()
		if err := cuda.MatMulBF16(y, a16, b16, c.ta, c.tb); errors.Is(err, cuda.ErrNoBF16) {
			fmt.Fprintln(os.Stderr, "bf16 part skipped:", err)
			a16.Free()
			b16.Free()
			y.Free()
			return
		}
		y16 := must(d.EmptyBF16(c.m, c.n))
		for _, k := range kerns {
			tune.GEMMBF16 = k
			ms := timeDev(d, func() { check(cuda.MatMulBF16(y, a16, b16, c.ta, c.tb)) })
			wall := timeit(d, func() { check(cuda.MatMulBF16(y, a16, b16, c.ta, c.tb)) })
			report("gemm-bf16", "-", fmt.Sprintf("%s [f32 out] [%s]", c.name, k), ms, 0, fmt.Sprintf("%.1f TFLOP/s, %.2fx fp32%s; wall %.3f ms",
				flop/ms/1e9, ms32/ms, pctRoof(desc, flop, 2*in+4*out, ms), wall))
			ms = timeDev(d, func() { check(cuda.MatMulBF16Out(y16, a16, b16, c.ta, c.tb)) })
			wall = timeit(d, func() { check(cuda.MatMulBF16Out(y16, a16, b16, c.ta, c.tb)) })
			report("gemm-bf16", "-", fmt.Sprintf("%s [bf16 out] [%s]", c.name, k), ms, 0, fmt.Sprintf("%.1f TFLOP/s, %.2fx fp32%s; wall %.3f ms",
				flop/ms/1e9, ms32/ms, pctRoof(desc, flop, 2*in+2*out, ms), wall))
		}
		tune.GEMMBF16 = kerns[0]
		y.Free()
		y16.Free()
		a16.Free()
		b16.Free()
	}
	for _, g := range gs {
		if g == nil {
			continue
		}
		dg := g.upload(d)
		e := int64(len(g.idx))
		for _, f := range []int{64, 256} {
			x := randT(d, r, g.n, f, 1)
			y := must(d.Empty(g.n, f))
			ms32 := timeit(d, func() { check(cuda.SpMM(y, dg, x, cuda.SpMMAuto)) })
			bytes32 := float64(e*8 + e*int64(f)*4 + int64(g.n)*int64(f)*4)
			report("spmm-fp32", g.name, fmt.Sprintf("F=%d", f), ms32, 0, fmt.Sprintf("%.0f GB/s", bytes32/ms32/1e6))
			x16 := must(cuda.ToBF16(x))
			ms := timeit(d, func() { check(cuda.SpMMBF16(y, dg, x16)) })
			bytes := float64(e*8 + e*int64(f)*2 + int64(g.n)*int64(f)*4)
			report("spmm-bf16", g.name, fmt.Sprintf("F=%d [f32 out]", f), ms, 0, fmt.Sprintf("%.0f GB/s, %.2fx fp32", bytes/ms/1e6, ms32/ms))
			y16 := must(d.EmptyBF16(g.n, f))
			ms = timeit(d, func() { check(cuda.SpMMBF16Out(y16, dg, x16)) })
			bytes = float64(e*8 + e*int64(f)*2 + int64(g.n)*int64(f)*2)
			report("spmm-bf16", g.name, fmt.Sprintf("F=%d [bf16 out]", f), ms, 0, fmt.Sprintf("%.0f GB/s, %.2fx fp32", bytes/ms/1e6, ms32/ms))
			ms32t := timeit(d, func() { check(cuda.SpMMT(y, dg, x, cuda.SpMMAuto)) })
			report("spmmT-fp32", g.name, fmt.Sprintf("F=%d", f), ms32t, 0, "")
			ms = timeit(d, func() { check(cuda.SpMMBF16T(y, dg, x16)) })
			report("spmmT-bf16", g.name, fmt.Sprintf("F=%d [f32 out]", f), ms, 0, fmt.Sprintf("%.2fx fp32", ms32t/ms))

			// A GCN layer's forward pass, x·W then the SpMM, in
			// float32 and in bfloat16 storage (bf16 outputs, f32 sums).
			if f == 256 {
				const fin = 128
				xi := randT(d, r, g.n, fin, 1)
				w := randT(d, r, fin, f, 0.1)
				h := must(d.Empty(g.n, f))
				ms32 := timeit(d, func() {
					check(cuda.MatMul(h, xi, w, false, false))
					check(cuda.SpMM(y, dg, h, cuda.SpMMAuto))
				})
				report("gcn-layer-fwd-fp32", g.name, fmt.Sprintf("%d->%d", fin, f), ms32, 0, "")
				xi16, w16 := must(cuda.ToBF16(xi)), must(cuda.ToBF16(w))
				h16 := must(d.EmptyBF16(g.n, f))
				ms := timeit(d, func() {
					check(cuda.MatMulBF16Out(h16, xi16, w16, false, false))
					check(cuda.SpMMBF16Out(y16, dg, h16))
				})
				report("gcn-layer-fwd-bf16", g.name, fmt.Sprintf("%d->%d", fin, f), ms, 0, fmt.Sprintf("%.2fx fp32", ms32/ms))

				// Forward and backward of the layer without the
				// optimiser: h = x·W, y = relu(A·h + b); dz = relu'(y)
				// ⊙ dy, dh = Aᵀ·dz, dW = xᵀ·dh (float32 for the master
				// weight), dx = dh·Wᵀ (no bias gradient).
				bias := randT(d, r, 1, f, 0.1)
				dy := randT(d, r, g.n, f, 1)
				dz := must(d.Empty(g.n, f))
				dh := must(d.Empty(g.n, f))
				dW := must(d.Empty(fin, f))
				dx := must(d.Empty(g.n, fin))
				ms32 = timeit(d, func() {
					check(cuda.MatMul(h, xi, w, false, false))
					check(cuda.SpMM(y, dg, h, cuda.SpMMAuto))
					check(cuda.BiasAct(y, y, bias, true, 0, 1))
					check(cuda.ActBackward(dz, y, dy, true, 0))
					check(cuda.SpMMT(dh, dg, dz, cuda.SpMMAuto))
					check(cuda.MatMul(dW, xi, dh, true, false))
					check(cuda.MatMul(dx, dh, w, false, true))
				})
				report("gcn-layer-fwd+bwd-fp32", g.name, fmt.Sprintf("%d->%d", fin, f), ms32, 0, "")
				dy16 := must(cuda.ToBF16(dy))
				dz16 := must(d.EmptyBF16(g.n, f))
				dh16 := must(d.EmptyBF16(g.n, f))
				dx16 := must(d.EmptyBF16(g.n, fin))
				ms = timeit(d, func() {
					check(cuda.MatMulBF16Out(h16, xi16, w16, false, false))
					check(cuda.SpMMBF16Out(y16, dg, h16))
					check(cuda.BiasActBF16(y16, y16, bias, true, 0, 1))
					check(cuda.ActBackwardBF16(dz16, y16, dy16, true, 0))
					check(cuda.SpMMBF16TOut(dh16, dg, dz16))
					check(cuda.MatMulBF16(dW, xi16, dh16, true, false))
					check(cuda.MatMulBF16Out(dx16, dh16, w16, false, true))
				})
				report("gcn-layer-fwd+bwd-bf16", g.name, fmt.Sprintf("%d->%d", fin, f), ms, 0, fmt.Sprintf("%.2fx fp32", ms32/ms))
				for _, t := range []interface{ Free() }{bias, dy, dz, dh, dW, dx, dy16, dz16, dh16, dx16} {
					t.Free()
				}
				for _, t := range []interface{ Free() }{xi, w, h, xi16, w16, h16} {
					t.Free()
				}
			}
			x.Free()
			y.Free()
			x16.Free()
			y16.Free()
		}
		dg.Free()
	}
}
