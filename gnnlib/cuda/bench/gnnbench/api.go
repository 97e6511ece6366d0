package main

import (
	"flag"
	"fmt"
	"maps"
	"runtime"
	"sort"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// apiModel is the network of pyg_bench.py's Net written with gnnlib/nn:
// convolutions with ReLU and dropout 0.5 between them.
type apiModel struct {
	nn.Mode
	convs []nn.GraphLayer
	fwd   []func(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor
	drop  *nn.Dropout
	// fused: the hidden activations through nn.ForwardReLUDropout (one
	// op on the device with the layer, or nn.ReLUDropout after it)
	// instead of x.ReLU() and then the Dropout layer.
	fused bool
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
		switch {
		case i == len(m.fwd)-1:
			x = f(g, x)
		case m.fused:
			// The layer's ReLU and dropout in its own pass where it
			// can (nn.FuseLayerActivation), else nn.ReLUDropout.
			x = nn.ForwardReLUDropout(m.convs[i], g, x, m.drop)
		default:
			x = m.drop.Forward(f(g, x).ReLU())
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

// apiKinds are the models apiEpochs runs (-api-models).
var apiKinds = map[string]bool{}

var nnepochAB = flag.Bool("nnepoch-ab", false, "in the api part, the GCN and GATv2 epochs again with the old paths ("+oldPathsDoc+"), and the nnbf16 part's epochs in both")

// oldPathsDoc names what oldPaths turns off.
const oldPathsDoc = "nn.GATv2OneProduct, nn.AggregateFirstUnderAutocast, nn.FuseLayerActivation, tune.LossBlockSum and tune.CheckLabelsOnUpload off"

// oldPaths turns the nn epochs' paths that came with one product
// x·[W_src W_dst], aggregate-first GCN under Autocast, the layers' fused
// ReLU and dropout, the block-summed loss and the labels checked at
// upload off when old is set, and
// returns a function that restores them.
func oldPaths(old bool) func() {
	one, agg, act, blk, chk := nn.GATv2OneProduct, nn.AggregateFirstUnderAutocast, nn.FuseLayerActivation, tune.LossBlockSum, tune.CheckLabelsOnUpload
	if old {
		nn.GATv2OneProduct, nn.AggregateFirstUnderAutocast, nn.FuseLayerActivation, tune.LossBlockSum, tune.CheckLabelsOnUpload = false, false, false, false, false
	}
	return func() {
		nn.GATv2OneProduct, nn.AggregateFirstUnderAutocast, nn.FuseLayerActivation, tune.LossBlockSum, tune.CheckLabelsOnUpload = one, agg, act, blk, chk
	}
}

// oldPathEpochs is apiEpochs' GCN and GATv2 epochs (those -api-models
// has) with oldPaths on.
func oldPathEpochs(d *cuda.Device, g *csr, fin, hidden, classes, layers int) {
	saved := maps.Clone(apiKinds)
	defer func(tag string) {
		kernTag = tag
		maps.Copy(apiKinds, saved)
	}(kernTag)
	defer oldPaths(true)()
	clear(apiKinds)
	apiKinds["gcn"], apiKinds["gatv2"] = saved["gcn"], saved["gatv2"]
	kernTag += " [old paths]"
	apiEpochs(d, g, fin, hidden, classes, layers)
}

var unbiasAB = flag.Bool("nngatv2-ab", false, "in the api part, the arxiv-sized GATv2 epochs again with nn.ActOutInAttention off (a rebuilt copy of the attention output) and nn.RebuildInActBackward off (the activation's gradient and the rebuilt attention output in two passes), then with tune.UnbiasActOnePass off too (the attention output rebuilt in a copy of the activation), then nn.CollectAfterBackward off too (as before)")

// unbiasABEpochs is apiEpochs' GATv2 epochs (if -api-models has it)
// with nn.ActOutInAttention and nn.RebuildInActBackward off, then
// tune.UnbiasActOnePass off too, then nn.CollectAfterBackward off too.
func unbiasABEpochs(d *cuda.Device, g *csr, fin, hidden, classes, layers int) {
	saved := maps.Clone(apiKinds)
	defer func(tag string, actOut, rebuild, onePass, collect bool) {
		kernTag, nn.ActOutInAttention, nn.RebuildInActBackward, tune.UnbiasActOnePass, nn.CollectAfterBackward = tag, actOut, rebuild, onePass, collect
		maps.Copy(apiKinds, saved)
	}(kernTag, nn.ActOutInAttention, nn.RebuildInActBackward, tune.UnbiasActOnePass, nn.CollectAfterBackward)
	nn.ActOutInAttention = false
	clear(apiKinds)
	apiKinds["gatv2"] = saved["gatv2"]
	tag := kernTag
	nn.RebuildInActBackward, kernTag = false, tag+" [two passes]"
	apiEpochs(d, g, fin, hidden, classes, layers)
	tune.UnbiasActOnePass, kernTag = false, tag+" [two passes, unbias copied]"
	apiEpochs(d, g, fin, hidden, classes, layers)
	nn.CollectAfterBackward, kernTag = false, tag+" [two passes, unbias copied, no collection]"
	apiEpochs(d, g, fin, hidden, classes, layers)
}

// apiEpochs times full-batch training epochs (forward, backward, Adam) of
// GCN, GraphSAGE (mean), GAT and GATv2 written with gnnlib/nn and moved to
// the device with nn.To: the same code a notebook runs, each with its
// hidden activations written as x.ReLU() and a Dropout layer and as
// nn.ReLUDropout. The fused GATv2
// kernel takes power-of-two head widths, so its output layer is padded to
// the next one (labels stay below classes), as gnnbench's GATv2 epoch does.
func apiEpochs(d *cuda.Device, g *csr, fin, hidden, classes, layers int) {
	hg := hostGraph(g)
	x := tensor.Randn(1, g.n, fin).To(d.Backend())
	y := make([]int, g.n)
	for i := range y {
		y[i] = i % classes
	}
	for _, run := range []struct {
		kind  string
		fused bool
	}{{"gcn", false}, {"gcn", true}, {"sage", false}, {"sage", true}, {"gat", false}, {"gat", true}, {"gatv2", false}, {"gatv2", true}} {
		kind := run.kind
		if !apiKinds[kind] {
			continue
		}
		dims := apiDims(kind, fin, hidden, classes, layers)
		model := newAPIModel(kind, dims)
		model.fused = run.fused
		act := "ReLU, Dropout"
		if run.fused {
			act = "nn.ReLUDropout"
		}
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
		// The warm-up epochs' garbage (and what earlier parts left) goes
		// back first, so that the peak is the timed epochs' own, as
		// devicetest.Fake's ledger counts it.
		settle(d)
		times := make([]float64, *reps)
		st0 := d.ReplayStats()
		for i := range times {
			t0 := time.Now()
			epoch()
			times[i] = float64(time.Since(t0).Microseconds()) / 1e3
		}
		st1 := d.ReplayStats()
		sort.Float64s(times)
		n := int64(len(times))
		report("api-epoch", g.name, fmt.Sprintf("%s, %d layers, hidden %d, %s", kind, layers, hidden, act), times[len(times)/2], peakGiB(d),
			fmt.Sprintf("gnnlib/nn on the device; loss %.3f -> %.3f; %d launches per epoch, %d graph replays of %d nodes in %d epochs",
				first, last, (st1.Launches-st0.Launches)/n, st1.Replays-st0.Replays, st1.ReplayNodes-st0.ReplayNodes, n))
		if *profile && !cuda.GraphReplay && (g.name == "arxiv" && (kind == "gcn" || kind == "gatv2") || g.name == "cora" && (kind == "gcn" || kind == "sage")) {
			profileEpoch(d, g.name, kind+", "+act, epoch)
		}
		check(d.EmptyCache())
	}
	if *unbiasAB && g.name == "arxiv" && apiKinds["gatv2"] && nn.RebuildInActBackward && tune.UnbiasActOnePass && nn.CollectAfterBackward {
		unbiasABEpochs(d, g, fin, hidden, classes, layers)
	}
	if !abFlipped && g.name == "arxiv" {
		if *actOutAB && apiKinds["gatv2"] {
			abEpochs(d, g, fin, hidden, classes, layers, "nn.ActOutInAttention", &nn.ActOutInAttention, "gatv2")
		}
		if *colSumAB {
			abEpochs(d, g, fin, hidden, classes, layers, "tune.ColSumVec4", &tune.ColSumVec4, "gcn", "gatv2")
		}
		if *recomputeAB && apiKinds["gatv2"] {
			abEpochs(d, g, fin, hidden, classes, layers, "nn.RecomputeGATv2Product", &nn.RecomputeGATv2Product, "gatv2")
		}
	}
}

// abFlipped is set while abEpochs runs apiEpochs with a switch flipped,
// which must not flip it back.
var abFlipped bool

var (
	actOutAB    = flag.Bool("actout-ab", false, "in the api part, the arxiv-sized GATv2 epochs again with nn.ActOutInAttention flipped (the attention's backward pass given the activation, or a rebuilt copy of its output)")
	recomputeAB = flag.Bool("recompute-ab", false, "in the api part, the arxiv-sized GATv2 epochs again with nn.RecomputeGATv2Product flipped (the first layer's product made again in its backward pass, or kept)")
	colSumAB    = flag.Bool("colsum-ab", false, "in the api part, the arxiv-sized GCN and GATv2 epochs again with tune.ColSumVec4 flipped (the float32 bias gradients' column sums 4 columns a lane, or one column a thread)")
)

// abEpochs is apiEpochs' epochs of those of models that -api-models has,
// with the switch sw (named name) flipped.
func abEpochs(d *cuda.Device, g *csr, fin, hidden, classes, layers int, name string, sw *bool, models ...string) {
	saved := maps.Clone(apiKinds)
	defer func(tag string, on bool) {
		kernTag, *sw, abFlipped = tag, on, false
		maps.Copy(apiKinds, saved)
	}(kernTag, *sw)
	clear(apiKinds)
	for _, m := range models {
		apiKinds[m] = saved[m]
	}
	*sw, abFlipped = !*sw, true
	kernTag = fmt.Sprintf("%s [%s %v]", kernTag, name, *sw)
	apiEpochs(d, g, fin, hidden, classes, layers)
}

// profileEpoch runs epoch once more under a synchronising op hook: each
// op's time is the device's from the previous op's end to its own (the
// device synchronised at both, so launches do not overlap), its self time
// when other ops ran inside it; the allocator's bytes in use are read
// after every op. It reports the ops that took the most time, what ran
// outside any op (Adam, the loss read back), and the op after which the
// most memory was in use, beside the bytes in use once a garbage
// collection has returned what the epoch left to finalizers: what the
// gnnlib/nn epoch does that the hand-written one does not.
func profileEpoch(d *cuda.Device, gname, kind string, epoch func()) {
	type row struct {
		name  string
		calls int
		ms    float64
	}
	rows := map[string]*row{}
	var peak int64
	var peakOp string
	settle(d)
	check(d.Synchronize())
	base := must(d.MemStats()).InUse
	t0 := time.Now()
	last := t0
	var traced float64
	restore := backend.SetOpHook(func(e tensor.OpEvent) {
		check(d.Synchronize())
		now := time.Now()
		key := e.Name
		if e.Backward {
			key += " backward"
		}
		r := rows[key]
		if r == nil {
			r = &row{name: key}
			rows[key] = r
		}
		ms := float64(now.Sub(last).Microseconds()) / 1e3
		r.calls++
		r.ms += ms
		traced += ms
		if s := must(d.MemStats()); s.InUse > peak {
			peak, peakOp = s.InUse, key
		}
		last = time.Now() // the memory read is not the next op's
	})
	epoch()
	check(d.Synchronize())
	restore()
	outside := float64(time.Since(last).Microseconds()) / 1e3
	list := make([]*row, 0, len(rows))
	for _, r := range rows {
		list = append(list, r)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].ms > list[j].ms })
	what := func(s string) string { return fmt.Sprintf("%s profile: %s", kind, s) }
	for i, r := range list {
		if i == 12 {
			break
		}
		report("api-profile", gname, what(r.name), r.ms, 0, fmt.Sprintf("%d calls, synchronised after each op", r.calls))
	}
	report("api-profile", gname, what("after the last op (Adam, loss read back)"), outside, 0, fmt.Sprintf("ops traced: %.3f ms in all", traced))
	runtime.GC()
	time.Sleep(100 * time.Millisecond)
	after := must(d.MemStats()).InUse
	report("api-profile", gname, what("memory"), 0, float64(peak)/(1<<30),
		fmt.Sprintf("peak in use after %s; %.3f GiB in use before the epoch, %.3f GiB after it once collected", peakOp, float64(base)/(1<<30), float64(after)/(1<<30)))
}

// apiDims are the layer widths of an api-part model of kind: fin, hidden
// layers-1 times, then classes (for GATv2 rounded up to a power of two
// from 8, one of the fused kernels' exact widths, as the api, autoreplay
// and nnbf16 parts have always timed it).
func apiDims(kind string, fin, hidden, classes, layers int) []int {
	out := classes
	if kind == "gatv2" {
		for out = 8; out < classes; out *= 2 {
		}
	}
	dims := []int{fin}
	for range layers - 1 {
		dims = append(dims, hidden)
	}
	return append(dims, out)
}
