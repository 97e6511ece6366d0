package nn_test

import (
	"fmt"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/graph/kernels"
	"github.com/gnnlab/gnnlab/gnnlib/internal/parallel"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestSetThreadsGovernsGraphOps proves that tensor.SetThreads, the one
// thread knob, sets how many workers the graph kernels and the layers'
// aggregations use (before gnnlib/internal/parallel, tensor.SetThreads(1)
// left SpMM and aggregation on every core). The parallel package counts
// the workers of every loop.
func TestSetThreadsGovernsGraphOps(t *testing.T) {
	g, err := graph.ErdosRenyiM(20_000, 100_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	const f = 16
	x := tensor.Rand(1, g.NumNodes(), f)
	ops := []struct {
		name string
		run  func()
	}{
		{"kernels.SpMM", func() {
			dst := make([]float32, g.NumNodes()*f)
			kernels.SpMM(g, dst, x.Data(), f, nil)
		}},
		{"nn.SpMM", func() { nn.SpMM(g, x) }},
		{"nn.MeanAggregate", func() { nn.MeanAggregate(g, x) }},
		{"nn.GATv2Attention", func() {
			hs := x.Clone().SetRequiresGrad(true)
			att := tensor.Rand(2, f).SetRequiresGrad(true)
			nn.GATv2Attention(g, hs, hs, att, 2, 0.2, 0, nil, false).Sum().Backward()
		}},
	}
	defer tensor.SetThreads(tensor.SetThreads(0))
	for _, threads := range []int{1, 3} {
		for _, op := range ops {
			t.Run(fmt.Sprintf("%s/threads=%d", op.name, threads), func(t *testing.T) {
				tensor.SetThreads(threads)
				before := parallel.ReadStats()
				op.run()
				after := parallel.ReadStats()
				loops, workers := after.Loops-before.Loops, after.Workers-before.Workers
				if loops < 1 {
					t.Fatalf("%s ran no loop of gnnlib/internal/parallel", op.name)
				}
				if workers > int64(threads)*loops {
					t.Errorf("%s under SetThreads(%d): %d loops used %d workers, more than %d each", op.name, threads, loops, workers, threads)
				}
				if threads > 1 && workers <= loops {
					t.Errorf("%s under SetThreads(%d): %d loops used %d workers, none in parallel", op.name, threads, loops, workers)
				}
			})
		}
	}
}
