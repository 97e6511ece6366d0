package main

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// wgradShapes are the weight gradients Xᵀ·dY (k x m stored, k x n) that
// the nn epochs produce: Cora-sized GCN and GraphSAGE layers (1433 -> 16
// -> 7), their GAT/GATv2 first layers (8 heads of 8), and the arxiv-sized
// layers (128 -> 256 -> 256 -> 40), beside a narrow arxiv-sized one.
// bench/wgrad_torch.py times the same shapes with torch.matmul.
var wgradShapes = []gemmShape{
	{"Xᵀ·dY cora 1433x2708·2708x16", 1433, 2708, 16, true, false},
	{"Xᵀ·dY cora 16x2708·2708x7", 16, 2708, 7, true, false},
	{"Xᵀ·dY cora 16x2708·2708x8", 16, 2708, 8, true, false},
	{"Xᵀ·dY cora 1433x2708·2708x64", 1433, 2708, 64, true, false},
	{"Xᵀ·dY cora 64x2708·2708x7", 64, 2708, 7, true, false},
	{"Xᵀ·dY arxiv 128x169343·169343x16", 128, 169343, 16, true, false},
	{"Xᵀ·dY arxiv 128x169343·169343x256", 128, 169343, 256, true, false},
	{"Xᵀ·dY arxiv 256x169343·169343x256", 256, 169343, 256, true, false},
	{"Xᵀ·dY arxiv 256x169343·169343x40", 256, 169343, 40, true, false},
}

// wgradBatch is how many products one timed run queues before it
// synchronises: the Cora-sized ones take microseconds, less than a
// launch and a synchronisation.
const wgradBatch = 20

// wgradRates times each weight gradient with every kernel family of
// -gemm on the same operands: the median over -reps runs of wgradBatch
// products each, divided by wgradBatch (launch cost included, as in a
// training step, a synchronisation per run amortised).
func wgradRates(d *cuda.Device, r *rand.Rand, kerns []tune.GEMMKernel) {
	check(d.EmptyCache())
	for _, c := range wgradShapes {
		a := randT(d, r, c.k, c.m, 1)
		b := randT(d, r, c.k, c.n, 1)
		y := must(d.Empty(c.m, c.n))
		for _, k := range kerns {
			tune.GEMM = k
			run := func() {
				for range wgradBatch {
					check(cuda.MatMul(y, a, b, true, false))
				}
				check(d.Synchronize())
			}
			run()
			ts := make([]float64, *reps)
			for i := range ts {
				t0 := time.Now()
				run()
				ts[i] = float64(time.Since(t0).Nanoseconds()) / 1e6 / wgradBatch
			}
			sort.Float64s(ts)
			ms := ts[len(ts)/2]
			report("wgrad-fp32", "-", c.name+" ["+string(k)+"]", ms, 0,
				fmt.Sprintf("%.1f µs, %.2f TFLOP/s; median of %d runs of %d products", ms*1e3, 2*float64(c.m)*float64(c.k)*float64(c.n)/ms/1e9, *reps, wgradBatch))
		}
		tune.GEMM = kerns[0]
		a.Free()
		b.Free()
		y.Free()
	}
}
