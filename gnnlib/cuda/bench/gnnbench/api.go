package main

import (
	"fmt"
	"runtime"
	"sort"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// apiModel is the network of pyg_bench.py's Net written with gnnlib/nn:
// convolutions with ReLU and dropout 0.5 between them.
type apiModel struct {
	nn.Mode
	convs []nn.GraphLayer
	fwd   []func(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor
	drop  *nn.Dropout
}

func (m *apiModel) Params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, c := range m.convs {
		ps = append(ps, c.Params()...)
	}
	return ps
}

func (m *apiModel) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	for i, f := range m.fwd {
		x = f(g, x)
		if i < len(m.fwd)-1 {
			x = m.drop.Forward(x.ReLU())
		}
	}
	return x
}

// newAPIModel builds kind ("gcn", "sage", "gat", "gatv2"; one head) with
// the given widths.
func newAPIModel(kind string, dims []int) *apiModel {
	m := &apiModel{drop: nn.NewDropout(0.5)}
	for i := 0; i+1 < len(dims); i++ {
		a, b := dims[i], dims[i+1]
		switch kind {
		case "gcn":
			c := nn.NewGCNConv(a, b)
			m.convs, m.fwd = append(m.convs, c), append(m.fwd, c.Forward)
		case "sage":
			c := nn.NewSAGEConv(a, b, "mean")
			m.convs, m.fwd = append(m.convs, c), append(m.fwd, c.Forward)
		case "gat":
			c := nn.NewGATConv(a, b, 1, true, 0)
			m.convs, m.fwd = append(m.convs, c), append(m.fwd, c.Forward)
		case "gatv2":
			c := nn.NewGATv2Conv(a, b, 1, true, 0)
			m.convs, m.fwd = append(m.convs, c), append(m.fwd, c.Forward)
		}
	}
	return m
}

// apiEpochs times full-batch training epochs (forward, backward, Adam) of
// GCN, GraphSAGE (mean), GAT and GATv2 written with gnnlib/nn and moved to
// the device with nn.To: the same code a notebook runs. The fused GATv2
// kernel takes power-of-two head widths, so its output layer is padded to
// the next one (labels stay below classes), as gnnbench's GATv2 epoch does.
func apiEpochs(d *cuda.Device, g *csr, fin, hidden, classes, layers int) {
	indptr, idx := make([]int, len(g.indptr)), make([]int, len(g.idx))
	for i, v := range g.indptr {
		indptr[i] = int(v)
	}
	for i, v := range g.idx {
		idx[i] = int(v)
	}
	hg, err := graph.FromCSR(g.n, indptr, idx, nil)
	check(err)
	x := tensor.Randn(1, g.n, fin).To(d.Backend())
	y := make([]int, g.n)
	for i := range y {
		y[i] = i % classes
	}
	for _, kind := range []string{"gcn", "sage", "gat", "gatv2"} {
		out := classes
		if kind == "gatv2" {
			for out = 8; out < classes; out *= 2 {
			}
		}
		dims := []int{fin}
		for range layers - 1 {
			dims = append(dims, hidden)
		}
		dims = append(dims, out)
		model := newAPIModel(kind, dims)
		nn.To(model, d.Backend())
		opt := nn.NewAdam(model.Params(), 0.01, 0)
		var first, last float32
		epoch := func() {
			opt.ZeroGrad()
			loss := nn.CrossEntropy(model.Forward(hg, x), y, nil)
			loss.Backward()
			opt.Step()
			last = loss.Item() // waits for the device
			if first == 0 {
				first = last
			}
		}
		epoch()
		epoch()
		// The warm-up epochs' garbage goes back first (finalizers queue
		// the blocks, ResetPeak collects them), so that the peak is the
		// timed epochs' own, as devicetest.Fake's ledger counts it.
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
		d.ResetPeak()
		times := make([]float64, *reps)
		for i := range times {
			t0 := time.Now()
			epoch()
			times[i] = float64(time.Since(t0).Microseconds()) / 1e3
		}
		sort.Float64s(times)
		report("api-epoch", g.name, fmt.Sprintf("%s, %d layers, hidden %d", kind, layers, hidden), times[len(times)/2], peakGiB(d),
			fmt.Sprintf("gnnlib/nn on the device; loss %.3f -> %.3f", first, last))
		check(d.EmptyCache())
	}
}
