package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
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
// bf16GEMMAll sets tune.GEMMBF16 for the whole run (the layers' and
// epochs' bfloat16 products), one of tune.GEMMBF16Kernels; the bf16
// part's -bf16-gemm list still sets its own.
var bf16GEMMAll = flag.String("bf16-gemm-all", "", "the tensor-core GEMM kernel (tune.GEMMBF16) of every part's bfloat16 products, one of auto, pipe, pipesw, piperes, big, bigs, reg, wg, wgd (empty: the default)")

var bf16Kerns = flag.String("bf16-gemm", "auto,pipe,big", "comma-separated tensor-core GEMM kernels of the bf16 part (auto, pipe, pipesw, piperes, big, bigs, reg, wg, wgd); each shape's gemm-bf16-ab line compares the others with the first")

// bf16Shapes limits the bf16 part to its first shapes (for a profiler
// run); 0: all of them, and the SpMM.
var bf16Shapes = flag.Int("bf16-shapes", 0, "time only the first n GEMM shapes of the bf16 part, and no SpMM (0: everything)")

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
// BF16 SpMM against the FP32 one on the arxiv-sized graphs (uniform and
// skewed, the latter also without the heavy-row split), in one run; the
// GEMM and SpMM lines are device times (timeDev).
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
	if *bf16Shapes > 0 {
		shapes = shapes[:min(*bf16Shapes, len(shapes))]
		gs = nil
	}
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
		// ab[o][i]: kernel i's ms with output o (0 f32, 1 bf16).
		var ab [2][]float64
		for _, k := range kerns {
			tune.GEMMBF16 = k
			ms := timeDev(d, func() { check(cuda.MatMulBF16(y, a16, b16, c.ta, c.tb)) })
			wall := timeit(d, func() { check(cuda.MatMulBF16(y, a16, b16, c.ta, c.tb)) })
			report("gemm-bf16", "-", fmt.Sprintf("%s [f32 out] [%s]", c.name, k), ms, 0, fmt.Sprintf("%.1f TFLOP/s, %.2fx fp32%s; wall %.3f ms",
				flop/ms/1e9, ms32/ms, pctRoof(desc, flop, 2*in+4*out, ms), wall))
			ab[0] = append(ab[0], ms)
			ms = timeDev(d, func() { check(cuda.MatMulBF16Out(y16, a16, b16, c.ta, c.tb)) })
			wall = timeit(d, func() { check(cuda.MatMulBF16Out(y16, a16, b16, c.ta, c.tb)) })
			report("gemm-bf16", "-", fmt.Sprintf("%s [bf16 out] [%s]", c.name, k), ms, 0, fmt.Sprintf("%.1f TFLOP/s, %.2fx fp32%s; wall %.3f ms",
				flop/ms/1e9, ms32/ms, pctRoof(desc, flop, 2*in+2*out, ms), wall))
			ab[1] = append(ab[1], ms)
		}
		for o, name := range []string{"f32 out", "bf16 out"} {
			var parts []string
			for i := 1; i < len(kerns); i++ {
				parts = append(parts, fmt.Sprintf("%s %.3f ms (%.2fx)%s", kerns[i], ab[o][i], ab[o][0]/ab[o][i],
					pctRoof(desc, flop, 2*in+float64(4-2*o)*out, ab[o][i])))
			}
			if len(parts) > 0 {
				report("gemm-bf16-ab", "-", fmt.Sprintf("%s [%s]", c.name, name), ab[o][0], 0,
					fmt.Sprintf("%s%s against %s", kerns[0], pctRoof(desc, flop, 2*in+float64(4-2*o)*out, ab[o][0]), strings.Join(parts, "; ")))
			}
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
		for _, f := range []int{48, 64, 100, 256} {
			if g.n > 1e6 && (f == 48 || f == 100) {
				continue // the products-sized graph: the two widths of before
			}
			x := randT(d, r, g.n, f, 1)
			y := must(d.Empty(g.n, f))
			ms32 := timeDev(d, func() { check(cuda.SpMM(y, dg, x, cuda.SpMMAuto)) })
			bytes32 := float64(e*8 + e*int64(f)*4 + int64(g.n)*int64(f)*4)
			report("spmm-fp32", g.name, fmt.Sprintf("F=%d", f), ms32, 0, fmt.Sprintf("%.0f GB/s", bytes32/ms32/1e6))
			x16 := must(cuda.ToBF16(x))
			ms := timeDev(d, func() { check(cuda.SpMMBF16(y, dg, x16)) })
			bytes := float64(e*8 + e*int64(f)*2 + int64(g.n)*int64(f)*4)
			report("spmm-bf16", g.name, fmt.Sprintf("F=%d [f32 out]", f), ms, 0, fmt.Sprintf("%.0f GB/s, %.2fx fp32", bytes/ms/1e6, ms32/ms))
			y16 := must(d.EmptyBF16(g.n, f))
			ms = timeDev(d, func() { check(cuda.SpMMBF16Out(y16, dg, x16)) })
			bytes = float64(e*8 + e*int64(f)*2 + int64(g.n)*int64(f)*2)
			report("spmm-bf16", g.name, fmt.Sprintf("F=%d [bf16 out]", f), ms, 0, fmt.Sprintf("%.0f GB/s, %.2fx fp32", bytes/ms/1e6, ms32/ms))
			if f == 48 || f == 100 {
				// The lane mapping before BF16SpMMOnePass: F/8 lanes
				// rounded down (48: two passes of 4), the warp kernel
				// at 100.
				tune.BF16SpMMOnePass = false
				ms = timeDev(d, func() { check(cuda.SpMMBF16Out(y16, dg, x16)) })
				tune.BF16SpMMOnePass = true
				report("spmm-bf16", g.name, fmt.Sprintf("F=%d [bf16 out] [before one-pass]", f), ms, 0, fmt.Sprintf("%.0f GB/s, %.2fx fp32", bytes/ms/1e6, ms32/ms))
			}
			if g.name == "arxiv-skewed" {
				// Its hubs walked by one lane group each, as before the
				// bfloat16 SpMM split heavy rows.
				tune.BF16SplitHeavy = false
				ms = timeDev(d, func() { check(cuda.SpMMBF16Out(y16, dg, x16)) })
				tune.BF16SplitHeavy = true
				report("spmm-bf16", g.name, fmt.Sprintf("F=%d [bf16 out] [no heavy split]", f), ms, 0, fmt.Sprintf("%.0f GB/s, %.2fx fp32", bytes/ms/1e6, ms32/ms))
			}
			ms32t := timeDev(d, func() { check(cuda.SpMMT(y, dg, x, cuda.SpMMAuto)) })
			report("spmmT-fp32", g.name, fmt.Sprintf("F=%d", f), ms32t, 0, "")
			ms = timeDev(d, func() { check(cuda.SpMMBF16T(y, dg, x16)) })
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

// bf16Layer is one GCN layer of gcnEpochBF16: float32 master weight w and
// bias b with their float32 gradients, the weight's bfloat16 copy w16,
// and the bfloat16 activations the backward pass needs.
type bf16Layer struct {
	fin, fout      int
	last, aggFirst bool
	w, b, dw, db   *cuda.Tensor
	w16            *cuda.BF16Tensor
	x, z, y        *cuda.BF16Tensor // input, Â·x (aggregate-first), output (not the last layer's)
}

// gcnEpochBF16 times the hand-written GCN epoch of the gcn part (epoch)
// with bfloat16 storage, beside the float32 one on the same graph in the
// same run: features, activations and their gradients in bfloat16, the
// GEMMs on the tensor cores (MatMulBF16Out; the weight gradients
// MatMulBF16 into float32), the SpMMs over bfloat16 features with float32
// sums, bias, ReLU and dropout in bfloat16 storage (BiasActBF16,
// ActBackwardBF16), bias gradients ColSumBF16; the logits, the loss and
// its gradient float32, as are the master weights and Adam, whose
// weights are rounded to bfloat16 after each step. Layers as epoch's: a
// widening layer aggregates first (Â·x)·W; the output is padded to a
// multiple of 8 columns.
func gcnEpochBF16(d *cuda.Device, r *rand.Rand, g *csr, fin, hidden, classes, nl int) {
	gcnEpoch(d, r, g, fin, hidden, classes, nl) // the float32 epoch, same run
	check(d.EmptyCache())
	out := (classes + 7) / 8 * 8
	dg := g.upload(d)
	x32 := randT(d, r, g.n, fin, 1)
	x := must(cuda.ToBF16(x32))
	x32.Free()
	labels := make([]int, g.n)
	for i := range labels {
		labels[i] = r.IntN(classes)
	}
	y := must(cuda.NewLabels(d, labels))
	var layers []*bf16Layer
	var params, grads []*cuda.Tensor
	for i := 0; i < nl; i++ {
		a, b := hidden, hidden
		if i == 0 {
			a = fin
		}
		if i == nl-1 {
			b = out
		}
		l := &bf16Layer{fin: a, fout: b, last: i == nl-1, aggFirst: a < b}
		l.w = randT(d, r, a, b, float32(1/math.Sqrt(float64(a))))
		l.w16 = must(cuda.ToBF16(l.w))
		l.b = must(d.Zeros(1, b))
		l.dw, l.db = must(d.Empty(a, b)), must(d.Empty(1, b))
		layers = append(layers, l)
		params, grads = append(params, l.w, l.b), append(grads, l.dw, l.db)
	}
	opt := cuda.NewAdam(0.01)
	logits := must(d.Empty(g.n, out))
	grad := must(d.Empty(g.n, out))
	loss := must(d.Empty(1, 1))
	seed := uint64(1)
	step := func() {
		h := x
		for _, l := range layers {
			seed++
			l.x = h
			switch {
			case l.last:
				t := must(d.EmptyBF16(g.n, l.fout))
				check(cuda.MatMulBF16Out(t, h, l.w16, false, false))
				check(cuda.SpMMBF16(logits, dg, t))
				check(cuda.BiasAct(logits, logits, l.b, false, 0, 0))
				t.Free()
			case l.aggFirst:
				l.z = must(d.EmptyBF16(g.n, l.fin))
				check(cuda.SpMMBF16Out(l.z, dg, h))
				l.y = must(d.EmptyBF16(g.n, l.fout))
				check(cuda.MatMulBF16Out(l.y, l.z, l.w16, false, false))
				check(cuda.BiasActBF16(l.y, l.y, l.b, true, dropout, seed))
			default:
				t := must(d.EmptyBF16(g.n, l.fout))
				check(cuda.MatMulBF16Out(t, h, l.w16, false, false))
				l.y = must(d.EmptyBF16(g.n, l.fout))
				check(cuda.SpMMBF16Out(l.y, dg, t))
				check(cuda.BiasActBF16(l.y, l.y, l.b, true, dropout, seed))
				t.Free()
			}
			h = l.y
		}
		check(cuda.SoftmaxNLL(grad, loss, logits, y))
		check(cuda.ColSum(layers[nl-1].db, grad))
		dy := must(cuda.ToBF16(grad))
		for i := nl - 1; i >= 0; i-- {
			l := layers[i]
			gr := dy
			if !l.last {
				gr = must(d.EmptyBF16(g.n, l.fout))
				check(cuda.ActBackwardBF16(gr, l.y, dy, true, dropout))
				check(cuda.ColSumBF16(l.db, gr))
				dy.Free()
				l.y.Free()
			}
			var dx *cuda.BF16Tensor
			if l.aggFirst {
				check(cuda.MatMulBF16(l.dw, l.z, gr, true, false))
				if i > 0 {
					dz := must(d.EmptyBF16(g.n, l.fin))
					check(cuda.MatMulBF16Out(dz, gr, l.w16, false, true))
					dx = must(d.EmptyBF16(g.n, l.fin))
					check(cuda.SpMMBF16TOut(dx, dg, dz))
					dz.Free()
				}
				l.z.Free()
			} else {
				dt := must(d.EmptyBF16(g.n, l.fout))
				check(cuda.SpMMBF16TOut(dt, dg, gr))
				check(cuda.MatMulBF16(l.dw, l.x, dt, true, false))
				if i > 0 {
					dx = must(d.EmptyBF16(g.n, l.fin))
					check(cuda.MatMulBF16Out(dx, dt, l.w16, false, true))
				}
				dt.Free()
			}
			gr.Free()
			dy = dx
		}
		check(opt.Step(params, grads))
		for _, l := range layers {
			l.w16.Free()
			l.w16 = must(cuda.ToBF16(l.w))
		}
	}
	step()
	first := must(loss.Host())[0]
	d.ResetPeak()
	ms := timeit(d, step)
	last := must(loss.Host())[0]
	report("gcn-epoch-bf16", g.name, fmt.Sprintf("%d layers, hidden %d", nl, hidden), ms, peakGiB(d),
		fmt.Sprintf("bfloat16 storage, tensor-core GEMMs (%s); loss %.3f -> %.3f", tune.GEMMBF16, first, last))
	for _, l := range layers {
		for _, t := range []*cuda.Tensor{l.w, l.b, l.dw, l.db} {
			t.Free()
		}
		l.w16.Free()
	}
	for _, t := range []*cuda.Tensor{logits, grad, loss} {
		t.Free()
	}
	x.Free()
	dg.Free()
}
