package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// autoReplayPart times gnnlib/nn training epochs (nn.ReLUDropout between
// the layers, Adam) of GCN, GraphSAGE, GAT and GATv2 on the Cora-sized
// graph (2 layers, hidden 16) and of GCN and GATv2 on the arxiv-sized one
// (3 layers, hidden 256) in the three launch modes, side by side:
// kernel by kernel (GNNLAB_CUDA_GRAPHS=0), replayed as CUDA graphs (=1),
// and the automatic choice (cuda.AutoReplay, the default), which runs
// last and is given six warm-up epochs, as the others are, to settle
// (its rule needs three spans between waits, and a graph is built the
// second time its sequence comes). Each line's note says what the
// automatic choice chose (Device.Mapping's launch line) and how many
// epochs were replayed; the ratio lines give each mode's time over the
// better forced mode's.
func autoReplayPart(d *cuda.Device, cora, arxiv *csr) {
	defer func(g, a bool) { cuda.GraphReplay, cuda.AutoReplay = g, a }(cuda.GraphReplay, cuda.AutoReplay)
	type run struct {
		g                            *csr
		kind                         string
		fin, hidden, classes, layers int
	}
	var runs []run
	for _, k := range []string{"gcn", "sage", "gat", "gatv2"} {
		runs = append(runs, run{cora, k, 1433, 16, 7, 2})
	}
	for _, k := range []string{"gcn", "gatv2"} {
		runs = append(runs, run{arxiv, k, 128, 256, 40, 3})
	}
	hosts := map[*csr]*graph.Graph{}
	for _, r := range runs {
		if hosts[r.g] == nil {
			hosts[r.g] = hostGraph(r.g)
		}
		ms := map[string]float64{}
		for _, mode := range []string{"off", "on", "auto"} {
			cuda.GraphReplay, cuda.AutoReplay = mode == "on", mode == "auto"
			t, note := timeEpochs(d, hosts[r.g], r.kind, r.fin, r.hidden, r.classes, r.layers)
			ms[mode] = t
			report("autoreplay", r.g.name, fmt.Sprintf("%s, %d layers, hidden %d, GNNLAB_CUDA_GRAPHS=%s", r.kind, r.layers, r.hidden, map[string]string{"off": "0", "on": "1", "auto": "auto"}[mode]), t, peakGiB(d), note)
		}
		best := min(ms["off"], ms["on"])
		report("autoreplay-ratio", r.g.name, r.kind, ms["auto"]/best, 0,
			fmt.Sprintf("automatic / better forced mode; off %.3f, on %.3f, auto %.3f ms", ms["off"], ms["on"], ms["auto"]))
	}
}

// hostGraph is g as a graph.Graph.
func hostGraph(g *csr) *graph.Graph {
	indptr, idx := make([]int, len(g.indptr)), make([]int, len(g.idx))
	for i, v := range g.indptr {
		indptr[i] = int(v)
	}
	for i, v := range g.idx {
		idx[i] = int(v)
	}
	return must(graph.FromCSR(g.n, indptr, idx, nil))
}

// timeEpochs trains a fresh model of kind for six warm-up epochs and
// *reps timed ones and returns their median (ms) and a note: launches and
// graph replays per epoch, and the launch mode Device.Mapping reports.
func timeEpochs(d *cuda.Device, hg *graph.Graph, kind string, fin, hidden, classes, layers int) (float64, string) {
	dims := apiDims(kind, fin, hidden, classes, layers)
	model := newAPIModel(kind, dims)
	model.fused = true
	nn.To(model, d.Backend())
	x := tensor.Randn(1, hg.NumNodes(), fin).To(d.Backend())
	y := make([]int, hg.NumNodes())
	for i := range y {
		y[i] = i % classes
	}
	opt := nn.NewAdam(model.Params(), 0.01, 0)
	epoch := func() {
		opt.ZeroGrad()
		loss := nn.CrossEntropy(model.Forward(hg, x), y, nil)
		loss.Backward()
		opt.Step()
		loss.Item() // waits for the device
	}
	for range 6 {
		epoch()
	}
	settle(d)
	st0 := d.ReplayStats()
	times := make([]float64, *reps)
	for i := range times {
		t0 := time.Now()
		epoch()
		times[i] = float64(time.Since(t0).Microseconds()) / 1e3
	}
	st1 := d.ReplayStats()
	sort.Float64s(times)
	n := int64(len(times))
	launch := ""
	for _, l := range strings.Split(d.Mapping(), "\n") {
		if strings.HasPrefix(l, "launches:") {
			launch = l
		}
	}
	check(d.EmptyCache())
	return times[len(times)/2], fmt.Sprintf("%d launches and %d graph replays per epoch; %s",
		(st1.Launches-st0.Launches)/n, (st1.Replays-st0.Replays)/n, launch)
}
