package parallel_test

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/internal/parallel"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// cutCase is one operation that the benchmark of the cut times.
type cutCase struct {
	name string
	op   func()
}

// cutCases are the operations of issue 28's long-op item: dense MatMul
// (For over row panels), sparse×dense MatMul (For over rows), graph SpMM
// (Rows) and GATv2's attention with its backward pass (Rows and
// RowsByWorker), on graphs the size of Cora and of ogbn-arxiv.
func cutCases(b *testing.B) []cutCase {
	var cases []cutCase
	for _, n := range []int{256, 1024, 4000} {
		x, y := tensor.Randn(1, n, n), tensor.Randn(2, n, n)
		cases = append(cases, cutCase{fmt.Sprintf("MatMul/%d", n), func() { x.MatMul(y) }})
	}
	for _, g := range []struct {
		name  string
		nodes int
		pairs int
		f     int
	}{{"cora", 2708, 5278, 64}, {"arxiv", 169343, 583121, 128}} {
		gr, err := graph.ErdosRenyiM(g.nodes, g.pairs, 7)
		if err != nil {
			b.Fatal(err)
		}
		x := tensor.Randn(3, g.nodes, g.f)
		vals := make([]float32, gr.NumEdges())
		for i := range vals {
			vals[i] = 0.5
		}
		s := tensor.SparseFromCSR(g.nodes, g.nodes, gr.Indptr, gr.Indices, vals)
		cases = append(cases,
			cutCase{"SparseMatMul/" + g.name, func() { s.MatMul(x) }},
			cutCase{"graph.SpMM/" + g.name, func() { nn.SpMM(gr, x) }})
		if g.name != "cora" {
			continue // seconds a run on a shared machine; the cut is the same
		}
		const heads = 4
		hs := tensor.Randn(4, g.nodes, g.f).SetRequiresGrad(true)
		att := tensor.Randn(5, 1, g.f)
		cases = append(cases, cutCase{"GATv2Attention+backward/" + g.name, func() {
			nn.GATv2Attention(gr, hs, hs, att, heads, 0.2, 0, nil, false).Sum().Backward()
		}})
	}
	return cases
}

// BenchmarkCut times each operation with the loops cut as before
// (one range per worker) and as now (up to parallel.ChunksPerWorker
// chunks per worker, a cancel check before each), alternating the two in
// one run, at one thread and at GOMAXPROCS threads. It reports the median
// wall time of each and their ratio (new/old; the target is ≤ 1.02), and
// the ratio of the median CPU times the process used (cpu-new/old), which
// a machine busy with other work disturbs less:
//
//	go test ./gnnlib/internal/parallel -run '^$' -bench Cut -benchtime 20x
func BenchmarkCut(b *testing.B) {
	cases := cutCases(b)
	check := parallel.SetCancelCheck(func() error { return nil }) // as in a session
	defer func() { parallel.SetCancelCheck(check) }()
	defer parallel.SetOldCut(false)
	for _, threads := range []int{1, runtime.GOMAXPROCS(0)} {
		for _, c := range cases {
			b.Run(fmt.Sprintf("%s/threads=%d", c.name, threads), func(b *testing.B) {
				defer parallel.SetThreads(parallel.SetThreads(threads))
				var old, cur, oldCPU, curCPU []time.Duration
				timed := func(oldCut bool) {
					parallel.SetOldCut(oldCut)
					c0, start := cpuTime(), time.Now()
					c.op()
					wall, cpu := time.Since(start), cpuTime()-c0
					if oldCut {
						old, oldCPU = append(old, wall), append(oldCPU, cpu)
					} else {
						cur, curCPU = append(cur, wall), append(curCPU, cpu)
					}
				}
				timed(false) // warm the pools
				cur, curCPU = cur[:0], curCPU[:0]
				for i := 0; b.Loop(); i++ {
					// Alternate which goes first, so that neither always
					// follows the other.
					timed(i%2 == 0)
					timed(i%2 != 0)
				}
				mo, mc := median(old), median(cur)
				b.ReportMetric(float64(mo.Microseconds()), "old-µs")
				b.ReportMetric(float64(mc.Microseconds()), "new-µs")
				b.ReportMetric(float64(mc)/float64(mo), "new/old")
				if co, cc := median(oldCPU), median(curCPU); co > 0 {
					b.ReportMetric(float64(cc)/float64(co), "cpu-new/old")
				}
			})
		}
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
