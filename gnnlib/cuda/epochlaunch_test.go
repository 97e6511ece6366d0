package cuda

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// The kernels a training epoch launches, listed on the recording driver
// (no GPU): a 3-layer GCN (128 features, 256 hidden, 40 classes, ReLU and
// dropout between the layers, cross-entropy, Adam) written with gnnlib/nn
// and nn.ReLUDropout, against the same epoch written by hand with this
// package's kernels, as gnnlib/cuda/bench/gnnbench's gcn part does. The
// difference is what the tensor API costs beyond the kernels that do the
// work.

// launchCount is how many times each kernel ran, keyed "name" or, for
// the graph kernels, "name F=width" (the row width decides their cost).
type launchCount map[string]int

func (c launchCount) String() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(c)) {
		fmt.Fprintf(&b, "%s ×%d; ", k, c[k])
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// total is the number of launches.
func (c launchCount) total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// diff lists the kernels c launches more often than o, and how many more.
func (c launchCount) diff(o launchCount) launchCount {
	d := launchCount{}
	for k, v := range c {
		if v > o[k] {
			d[k] = v - o[k]
		}
	}
	return d
}

// countLaunches counts recs, naming the SpMM-family kernels with the
// width of the rows they move (the grid's y, or the argument list's).
func countLaunches(recs []graphNode) launchCount {
	c := launchCount{}
	for _, r := range recs {
		if r.kernel == "" {
			c["(fill)"]++
			continue
		}
		c[r.kernel]++
	}
	return c
}

// epochGraph is a random graph of n nodes with about 14 in-edges each
// and a self-loop each (the arxiv-sized graph's degree), GCN-normalised.
func epochGraph(t *testing.T, n int) *graph.Graph {
	return testGraph(t, n, 14*n, false)
}

// nnGCNEpochLaunches runs three epochs of the nn model on a recording
// device and returns the launches of the third (the first two upload the
// graph and labels and make Adam's moments).
func nnGCNEpochLaunches(t *testing.T, hg *graph.Graph, dims []int) launchCount {
	return nnEpochLaunches(t, hg, dims, func(in, out int) nn.GraphLayer { return nn.NewGCNConv(in, out) })
}

// nnEpochLaunches runs three epochs of a model of layers made by newConv
// (widths dims; nn.ForwardReLUDropout between them, CrossEntropy, Adam)
// on a recording device and returns the launches of the third.
func nnEpochLaunches(t *testing.T, hg *graph.Graph, dims []int, newConv func(in, out int) nn.GraphLayer) launchCount {
	d, drv := openRecorder(t)
	return countLaunches(nnEpochTrace(d, drv, hg, dims, newConv, func(f func()) { f() }))
}

// nnEpochTrace runs three epochs of a model of layers made by newConv
// (widths dims; nn.ForwardReLUDropout between them, CrossEntropy, Adam)
// on d, the forward pass and the loss inside run, and returns the third
// epoch's launches and fills (the first two upload the graph and labels
// and make Adam's moments).
func nnEpochTrace(d *Device, drv *recordDriver, hg *graph.Graph, dims []int, newConv func(in, out int) nn.GraphLayer, run func(func())) []graphNode {
	epoch := nnEpoch(d, hg, dims, newConv, run)
	epoch()
	epoch()
	drv.trace = nil
	epoch()
	return drv.trace
}

// epochConv returns the layer constructor of the nn epochs' kind: "gcn"
// (GCNConv) or "gatv2" (one-head GATv2Conv with self-loops).
func epochConv(kind string) func(in, out int) nn.GraphLayer {
	return map[string]func(in, out int) nn.GraphLayer{
		"gcn":   func(in, out int) nn.GraphLayer { return nn.NewGCNConv(in, out) },
		"gatv2": func(in, out int) nn.GraphLayer { return nn.NewGATv2Conv(in, out, 1, true, 0) },
	}[kind]
}

// nnEpoch returns one epoch of a model of layers made by newConv (widths
// dims; nn.ForwardReLUDropout between them, CrossEntropy, Adam) on d,
// the forward pass and the loss inside run.
func nnEpoch(d *Device, hg *graph.Graph, dims []int, newConv func(in, out int) nn.GraphLayer, run func(func())) func() {
	be := d.Backend()
	n := hg.NumNodes()
	var convs []nn.GraphLayer
	var ps []*tensor.Tensor
	for i := 0; i+1 < len(dims); i++ {
		c := newConv(dims[i], dims[i+1])
		convs = append(convs, c)
		ps = append(ps, c.Params()...)
	}
	for _, p := range ps {
		p.MoveTo(be)
	}
	drop := nn.NewDropout(0.5)
	x := tensor.Randn(1, n, dims[0]).To(be)
	y := make([]int, n)
	for i := range y {
		y[i] = i % dims[len(dims)-1]
	}
	opt := nn.NewAdam(ps, 0.01, 0)
	epoch := func() {
		opt.ZeroGrad()
		var loss *tensor.Tensor
		run(func() {
			h := x
			for i, c := range convs {
				if i < len(convs)-1 {
					h = nn.ForwardReLUDropout(c, hg, h, drop)
				} else {
					h = c.Forward(hg, h)
				}
			}
			loss = nn.CrossEntropy(h, y, nil)
		})
		loss.Backward()
		opt.Step()
		loss.Item()
	}
	return epoch
}

// handGCNEpochLaunches runs three epochs of gnnbench's hand-written GCN
// epoch (gnnbench's layer.forward and layer.backward for GCN) on a
// recording device and returns the launches of the third.
func handGCNEpochLaunches(t *testing.T, hg *graph.Graph, dims []int) launchCount {
	d, drv := openRecorder(t)
	dg, err := NewGraph(d, hg)
	if err != nil {
		t.Fatal(err)
	}
	n := hg.NumNodes()
	must := func(x *Tensor, err error) *Tensor {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	type layer struct {
		fin, fout      int
		w, b, dw, db   *Tensor
		x, z, y        *Tensor
		aggFirst, last bool
	}
	var layers []*layer
	var params, grads []*Tensor
	for i := 0; i+1 < len(dims); i++ {
		l := &layer{fin: dims[i], fout: dims[i+1], aggFirst: dims[i] < dims[i+1], last: i+2 == len(dims)}
		l.w, l.b = must(d.Zeros(l.fin, l.fout)), must(d.Zeros(1, l.fout))
		l.dw, l.db = must(d.Empty(l.fin, l.fout)), must(d.Empty(1, l.fout))
		layers = append(layers, l)
		params, grads = append(params, l.w, l.b), append(grads, l.dw, l.db)
	}
	x := must(d.Zeros(n, dims[0]))
	labels := make([]int, n)
	y := must2(t)(NewLabels(d, labels))
	grad := must(d.Empty(n, dims[len(dims)-1]))
	loss := must(d.Empty(1, 1))
	opt := NewAdam(0.01)
	const p = 0.5
	step := func(seed uint64) {
		h := x
		for _, l := range layers {
			l.x = h
			switch {
			case l.aggFirst:
				l.z = must(d.Empty(n, l.fin))
				check(SpMM(l.z, dg, h, SpMMAuto))
				l.y = must(d.Empty(n, l.fout))
				check(MatMul(l.y, l.z, l.w, false, false))
				check(BiasAct(l.y, l.y, l.b, !l.last, p, seed))
			default:
				tt := must(d.Empty(n, l.fout))
				check(MatMul(tt, h, l.w, false, false))
				l.y = must(d.Empty(n, l.fout))
				if l.last {
					check(SpMMBiasAct(l.y, dg, tt, l.b, false, 0, 0))
				} else {
					check(SpMMBiasAct(l.y, dg, tt, l.b, true, p, seed))
				}
				tt.Free()
			}
			h = l.y
		}
		check(SoftmaxNLL(grad, loss, h, y))
		dy := grad
		for i := len(layers) - 1; i >= 0; i-- {
			l := layers[i]
			gr := dy
			if l.last {
				check(ColSum(l.db, gr))
			} else {
				gr = must(d.Empty(n, l.fout))
				check(ActBackwardColSum(gr, l.db, l.y, dy, true, p))
			}
			var dx *Tensor
			if l.aggFirst {
				check(MatMul(l.dw, l.z, gr, true, false))
				if i > 0 {
					dz := must(d.Empty(n, l.fin))
					check(MatMul(dz, gr, l.w, false, true))
					dx = must(d.Empty(n, l.fin))
					check(SpMMT(dx, dg, dz, SpMMAuto))
					dz.Free()
				}
				l.z.Free()
			} else {
				dt := must(d.Empty(n, l.fout))
				check(SpMMT(dt, dg, gr, SpMMAuto))
				check(MatMul(l.dw, l.x, dt, true, false))
				if i > 0 {
					dx = must(d.Empty(n, l.fin))
					check(MatMul(dx, dt, l.w, false, true))
				}
				dt.Free()
			}
			if gr != dy {
				gr.Free()
			}
			if dy != grad {
				dy.Free()
			}
			dy = dx
		}
		for _, l := range layers {
			l.y.Free()
		}
		check(opt.Step(params, grads))
		if _, err := loss.Host(); err != nil {
			t.Fatal(err)
		}
	}
	step(1)
	step(2)
	drv.trace = nil
	step(3)
	return countLaunches(drv.trace)
}

func must2(t *testing.T) func(*Labels, error) *Labels {
	return func(l *Labels, err error) *Labels {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
}

// fastPaths sets nn.GCNAggregateFirst and nn.HandOffBiasGrad (off by
// default until they have run on a GPU) and returns a function that
// restores them.
func fastPaths(on bool) func() {
	agg, hand := nn.GCNAggregateFirst, nn.HandOffBiasGrad
	nn.GCNAggregateFirst, nn.HandOffBiasGrad = on, on
	return func() { nn.GCNAggregateFirst, nn.HandOffBiasGrad = agg, hand }
}

// TestGCNEpochLaunches lists the kernels of the gnnlib/nn GCN epoch, by
// default and with nn.GCNAggregateFirst and nn.HandOffBiasGrad on, and
// of the hand-written one, and checks that with them on the nn epoch
// launches every graph kernel (the SpMMs, which move the most bytes) no
// more often than the hand-written epoch does, and, with the hidden
// layers through nn.ForwardReLUDropout (bias, ReLU and dropout in the
// layer's pass), no more element-wise passes either.
func TestGCNEpochLaunches(t *testing.T) {
	hg := epochGraph(t, 2000)
	dims := []int{128, 256, 256, 40}
	defer fastPaths(false)()
	before := nnGCNEpochLaunches(t, hg, dims)
	fastPaths(true)
	api := nnGCNEpochLaunches(t, hg, dims)
	hand := handGCNEpochLaunches(t, hg, dims)
	t.Logf("gnnlib/nn, by default (nn.GCNAggregateFirst and nn.HandOffBiasGrad off): %d launches, more than the hand-written: %v", before.total(), before.diff(hand))
	t.Logf("gnnlib/nn: %d launches: %v", api.total(), api)
	t.Logf("hand-written: %d launches: %v", hand.total(), hand)
	t.Logf("nn launches more: %v", api.diff(hand))
	t.Logf("hand-written launches more: %v", hand.diff(api))
	for k, v := range api.diff(hand) {
		if strings.HasPrefix(k, "spmm") || k == "bias_act" || k == "binary_op" || strings.HasPrefix(k, "col_sum") || strings.HasPrefix(k, "act_backward") {
			t.Errorf("the nn epoch launches %s %d more times than the hand-written one", k, v)
		}
	}
}

// nnGATv2EpochLaunches is nnGCNEpochLaunches for GATv2Conv layers (one
// head each).
func nnGATv2EpochLaunches(t *testing.T, hg *graph.Graph, dims []int) launchCount {
	return nnEpochLaunches(t, hg, dims, func(in, out int) nn.GraphLayer { return nn.NewGATv2Conv(in, out, 1, true, 0) })
}

// handGATv2EpochLaunches runs three epochs of gnnbench's hand-written
// GATv2 epoch (layer.forward and layer.backward for GATv2: one product
// x·[W_l W_r], bias, ReLU and dropout over the attention output in place,
// UnbiasAct before the attention's backward pass) on a recording device
// and returns the launches of the third.
func handGATv2EpochLaunches(t *testing.T, hg *graph.Graph, dims []int) launchCount {
	d, drv := openRecorder(t)
	step := handGATv2Epoch(t, d, hg, dims)
	step(1)
	step(2)
	drv.trace = nil
	step(3)
	return countLaunches(drv.trace)
}

// handGATv2Epoch returns one step of gnnbench's hand-written GATv2 epoch
// (see handGATv2EpochLaunches) on d, its dropout drawn from seed.
func handGATv2Epoch(t *testing.T, d *Device, hg *graph.Graph, dims []int) (step func(seed uint64)) {
	dg, err := NewGraph(d, hg.AddSelfLoops())
	if err != nil {
		t.Fatal(err)
	}
	n := hg.NumNodes()
	must := func(x *Tensor, err error) *Tensor {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	type layer struct {
		fin, fout              int
		w, b, att, dw, db, dat *Tensor
		x, xlr, y              *Tensor
		a                      *GATv2
		last                   bool
	}
	var layers []*layer
	var params, grads []*Tensor
	for i := 0; i+1 < len(dims); i++ {
		l := &layer{fin: dims[i], fout: dims[i+1], last: i+2 == len(dims)}
		l.w, l.b, l.att = must(d.Zeros(l.fin, 2*l.fout)), must(d.Zeros(1, l.fout)), must(d.Zeros(1, l.fout))
		l.dw, l.db, l.dat = must(d.Empty(l.fin, 2*l.fout)), must(d.Empty(1, l.fout)), must(d.Empty(1, l.fout))
		layers = append(layers, l)
		params, grads = append(params, l.w, l.b, l.att), append(grads, l.dw, l.db, l.dat)
	}
	x := must(d.Zeros(n, dims[0]))
	y := must2(t)(NewLabels(d, make([]int, n)))
	grad := must(d.Empty(n, dims[len(dims)-1]))
	loss := must(d.Empty(1, 1))
	opt := NewAdam(0.01)
	const p = 0.5
	return func(seed uint64) {
		h := x
		for _, l := range layers {
			l.x = h
			l.xlr = must(d.Empty(n, 2*l.fout))
			check(MatMul(l.xlr, h, l.w, false, false))
			a, err := GATv2Forward(dg, l.xlr, l.att, 1, l.fout, 0.2, AttentionDropout{})
			check(err)
			l.a, l.y = a, a.Out
			if l.last {
				check(BiasAct(l.y, l.y, l.b, false, 0, 0))
			} else {
				check(BiasAct(l.y, l.y, l.b, true, p, seed))
			}
			h = l.y
		}
		check(SoftmaxNLL(grad, loss, h, y))
		dy := grad
		for i := len(layers) - 1; i >= 0; i-- {
			l := layers[i]
			gr := dy
			switch {
			case l.last:
				check(ColSum(l.db, gr))
			case dy != grad:
				check(ActBackwardColSum(dy, l.db, l.y, dy, true, p))
			default:
				gr = must(d.Empty(n, l.fout))
				check(ActBackwardColSum(gr, l.db, l.y, dy, true, p))
			}
			if l.last {
				check(UnbiasAct(l.y, l.b, false, 0))
			} else {
				check(UnbiasAct(l.y, l.b, true, p))
			}
			dxlr := must(d.Empty(n, 2*l.fout))
			check(l.a.Backward(dg, l.xlr, l.att, gr, dxlr, l.dat))
			check(MatMul(l.dw, l.x, dxlr, true, false))
			l.a.Free()
			l.xlr.Free()
			if gr != dy {
				gr.Free()
			}
			if dy != grad {
				dy.Free()
			}
			var dx *Tensor
			if i > 0 {
				dx = must(d.Empty(n, l.fin))
				check(MatMul(dx, dxlr, l.w, false, true))
			}
			dxlr.Free()
			dy = dx
		}
		check(opt.Step(params, grads))
		if _, err := loss.Host(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGATv2EpochLaunches lists the kernels of the gnnlib/nn GATv2 epoch
// (3 layers 128-256-256-64, nn.ReLUDropout between them, with
// nn.HandOffBiasGrad on) and of the
// hand-written one, and checks that the nn epoch runs each attention
// kernel and each GEMM no more often than the hand-written one: with
// nn.GATv2OneProduct a layer makes one product x·[W_src W_dst] and one
// each for the weights' and x's gradients, as the hand-written epoch
// does (the two products, their gradients and the sum of x's two
// gradient parts before it: 8 GEMMs and 2 axpby more). What it makes
// instead is small: [W_src W_dst] and the split of its gradient
// (copy_cols ×4 a layer, over the weights).
func TestGATv2EpochLaunches(t *testing.T) {
	defer fastPaths(true)()
	hg := epochGraph(t, 2000)
	dims := []int{128, 256, 256, 64}
	defer func(on bool) { nn.GATv2OneProduct = on }(nn.GATv2OneProduct)
	defer func(on, auto bool) { tune.GATv2EdgeCoef, tune.GATv2EdgeAuto = on, auto }(tune.GATv2EdgeCoef, tune.GATv2EdgeAuto)
	// With the edge-coefficient backward (tune.GATv2EdgeCoef; without it,
	// tune.GATv2EdgeAuto off too) and without, whose passes both epochs
	// run in the same order.
	for _, edge := range []bool{false, true} {
		t.Run(fmt.Sprintf("edge=%t", edge), func(t *testing.T) {
			tune.GATv2EdgeCoef, tune.GATv2EdgeAuto = edge, edge
			nn.GATv2OneProduct = false
			two := nnGATv2EpochLaunches(t, hg, dims)
			nn.GATv2OneProduct = true
			api := nnGATv2EpochLaunches(t, hg, dims)
			hand := handGATv2EpochLaunches(t, hg, dims)
			t.Logf("gnnlib/nn with two products (nn.GATv2OneProduct off): %d launches, more than the hand-written: %v", two.total(), two.diff(hand))
			t.Logf("gnnlib/nn: %d launches: %v", api.total(), api)
			t.Logf("hand-written: %d launches: %v", hand.total(), hand)
			t.Logf("nn launches more: %v", api.diff(hand))
			t.Logf("hand-written launches more: %v", hand.diff(api))
			for k, v := range api.diff(hand) {
				if strings.HasPrefix(k, "gatv2") || strings.HasPrefix(k, "attn") || strings.HasPrefix(k, "gemm") || k == "axpby" {
					t.Errorf("the nn epoch launches %s %d more times than the hand-written one", k, v)
				}
			}
			// The 1x256 layers' pass, in the tune.GATv2EdgeVariant it runs
			// (bal: gatv2_bwd_dste_32_2_bal).
			dste := func(m launchCount) int {
				n := 0
				for k, v := range m {
					if strings.HasPrefix(k, "gatv2_bwd_dste_32_2") {
						n += v
					}
				}
				return n
			}
			if edge != (dste(api) > 0) || edge != (dste(hand) > 0) {
				t.Errorf("edge-coefficient destination passes: nn %d, hand-written %d", dste(api), dste(hand))
			}
		})
	}
}
