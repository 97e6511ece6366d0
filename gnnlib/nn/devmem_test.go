package nn_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// The device memory of a training epoch written with this package, on
// devicetest's Fake, whose ledger counts what the device would hold: the
// network of gnnlib/cuda/bench/gnnbench's api part (3 layers of 256,
// ReLU and dropout 0.5 between, cross-entropy, Adam) on a random graph of
// the arxiv-sized graph's degree, scaled down.

// Arxiv-sized, as gnnbench generates it: 169,343 nodes, 2,332,486 random
// edges plus a self-loop each, 128 features, 40 classes.
const (
	arxivNodes = 169_343
	arxivEdges = 2_332_486
)

// memGraph is a random graph of n nodes with the arxiv-sized graph's
// edges per node, drawn as gnnbench draws it (sources and destinations
// uniform, one self-loop per node).
func memGraph(tb testing.TB, n int) *graph.Graph {
	m := int(int64(n) * arxivEdges / arxivNodes)
	r := rand.New(rand.NewPCG(2, 99))
	src, dst := make([]int, 0, m+n), make([]int, 0, m+n)
	for range m {
		src, dst = append(src, r.IntN(n)), append(dst, r.IntN(n))
	}
	for v := range n {
		src, dst = append(src, v), append(dst, v)
	}
	g, err := graph.FromEdges(n, src, dst)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// memModel is gnnbench's apiModel: convolutions with ReLU and dropout
// between them.
type memModel struct {
	nn.Mode
	convs []nn.GraphLayer
	drop  *nn.Dropout
	fused bool // nn.ForwardReLUDropout for the hidden layers, not ReLU and Dropout
}

func (m *memModel) Params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, c := range m.convs {
		ps = append(ps, c.Params()...)
	}
	return ps
}

func (m *memModel) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	for i, c := range m.convs {
		switch {
		case i == len(m.convs)-1:
			x = c.Forward(g, x)
		case m.fused:
			x = nn.ForwardReLUDropout(c, g, x, m.drop)
		default:
			x = m.drop.Forward(c.Forward(g, x).ReLU())
		}
	}
	return x
}

// memDims are the widths of the measured networks: 128 features, two
// hidden layers of 256, and 40 classes (GATv2: 64, the output width
// gnnbench pads it to).
func memDims(kind string) []int {
	if kind == "gatv2" {
		return []int{128, 256, 256, 64}
	}
	return []int{128, 256, 256, 40}
}

func newMemModel(kind string, dims []int, fused bool) *memModel {
	m := &memModel{drop: nn.NewDropout(0.5), fused: fused}
	for i := 0; i+1 < len(dims); i++ {
		switch kind {
		case "gcn":
			m.convs = append(m.convs, nn.NewGCNConv(dims[i], dims[i+1]))
		case "gatv2":
			m.convs = append(m.convs, nn.NewGATv2Conv(dims[i], dims[i+1], 1, true, 0))
		}
	}
	return m
}

// epochMemory is what one measured epoch held on the Fake.
type epochMemory struct {
	n        int
	peakLive int64 // reachable storage at its most (Collect: exact)
	peakHeld int64 // storage not yet freed at its most
	after    int64 // live after the epoch, once the loss is dropped
	params   int64 // parameters with gradients and Adam moments
	resident int64 // params, features, graph, the loss gradient
	floor    int64 // resident plus what the backward pass must read
}

// scaleRecompute scales nn.RecomputeGATv2ProductMin from the arxiv-sized
// graph to n nodes, as poolPolicies scales the allocator's periods, so
// that a smaller graph makes its product again where the arxiv-sized one
// does; the returned function puts it back.
func scaleRecompute(n int) func() {
	min := nn.RecomputeGATv2ProductMin
	nn.RecomputeGATv2ProductMin = min * int64(n) / arxivNodes
	return func() { nn.RecomputeGATv2ProductMin = min }
}

// measureEpoch trains kind on an n-node graph on a Fake for two epochs
// (Adam's moments and the device graph are made in the first) and
// measures the third, running the collector before every allocation so
// that peakLive is exact. fused puts nn.ReLUDropout between the layers.
func measureEpoch(tb testing.TB, kind string, n int, fused bool) epochMemory {
	defer scaleRecompute(n)()
	g := memGraph(tb, n)
	dims := memDims(kind)
	dev := &devicetest.Fake{}
	model := newMemModel(kind, dims, fused)
	nn.To(model, dev)
	x := tensor.Randn(1, n, dims[0]).To(dev)
	y := make([]int, n)
	for i := range y {
		y[i] = i % 40
	}
	opt := nn.NewAdam(model.Params(), 0.01, 0)
	epoch := func() {
		opt.ZeroGrad()
		loss := nn.CrossEntropy(model.Forward(g, x), y, nil)
		loss.Backward()
		opt.Step()
		loss.Item()
	}
	epoch()
	epoch()
	opt.ZeroGrad() // the measured epoch starts without gradients
	dev.ResetPeak()
	dev.Collect = true
	epoch()
	dev.Collect = false
	st := dev.MemStats()
	dev.ResetPeak()
	m := epochMemory{n: n, peakLive: st.PeakLive, peakHeld: st.PeakHeld, after: dev.MemStats().Live}
	runtime.KeepAlive(x) // the model's state stays live through the count
	runtime.KeepAlive(opt)
	m.params, m.resident, m.floor = memFloor(kind, g, dims, model.Params())
	return m
}

// memFloor returns the bytes an epoch cannot do without: resident, the
// parameters (with their gradients and Adam's two moments), the features,
// the labels' loss gradient and the device graph (as devicetest.Fake
// charges it); and floor, resident plus the activations the backward pass
// reads, at the end of the forward pass. A GCN layer's weight gradient
// reads its input, so each hidden layer keeps one N×256 activation (the
// ReLU and dropout masks are recovered from it, as gnnbench's hand-written
// epoch does). A GATv2 layer's fused backward reads x·W_src, x·W_dst,
// its output (which can double as the activation) and one log-sum-exp per
// node; the first layer, whose product nn.RecomputeGATv2Product makes
// again, keeps only its output and log-sum-exps. The floor leaves out
// the backward pass's working set (an upstream gradient and one or two
// of its products at a time), so no epoch reaches it; it is what the
// tape would hold if it kept nothing backward does not read.
func memFloor(kind string, g *graph.Graph, dims []int, ps []*tensor.Tensor) (params, resident, floor int64) {
	n, e := int64(g.NumNodes()), int64(g.NumEdges())
	for _, p := range ps {
		params += 4 * 4 * int64(p.Len())
	}
	resident = params
	resident += 4 * n * int64(dims[0])           // features
	resident += 4 * (2*(n+1) + 2*e)              // CSR and transpose
	resident += 4 * n * int64(dims[len(dims)-1]) // the loss gradient
	floor = resident
	switch kind {
	case "gcn":
		resident += 4 * 2 * e // GCN weights, both orders
		floor = resident
		for _, w := range dims[1 : len(dims)-1] {
			floor += 4 * n * int64(w)
		}
	case "gatv2":
		floor = resident
		for i, w := range dims[1:] {
			floor += 4 * n * (3*int64(w) + 1)
			if i == 0 && nn.RecomputeGATv2Product && 4*n*2*int64(w) >= nn.RecomputeGATv2ProductMin {
				floor -= 4 * n * 2 * int64(w) // the product, made again in the backward pass
			}
		}
	}
	return params, resident, floor
}

func gib(b float64) string { return fmt.Sprintf("%.2f GiB", b/(1<<30)) }

// perNode returns b less the parameters' state, per node.
func (m epochMemory) perNode(b int64) float64 { return float64(b-m.params) / float64(m.n) }

// arxiv extrapolates b to the arxiv-sized graph: the parameters' state
// stays, the rest grows with the nodes (at a fixed degree, the edges do
// too).
func (m epochMemory) arxiv(b int64) float64 { return float64(m.params) + m.perNode(b)*arxivNodes }

// report is m as a line: bytes per node (past the parameters' state) and
// extrapolated to the arxiv-sized graph.
func (m epochMemory) report(kind string) string {
	per := m.perNode
	arx := func(b int64) string { return gib(m.arxiv(b)) }
	return fmt.Sprintf("%s on %d nodes: peak live %.0f B/node (arxiv %s), peak held %.0f B/node (arxiv %s); floor %.0f B/node (arxiv %s), resident %.0f B/node (arxiv %s)",
		kind, m.n, per(m.peakLive), arx(m.peakLive), per(m.peakHeld), arx(m.peakHeld),
		per(m.floor), arx(m.floor), per(m.resident), arx(m.resident))
}

// memRuns are the measured epochs: each model with ReLU and a Dropout
// layer between its convolutions, and with nn.ReLUDropout.
var memRuns = []struct {
	name, kind string
	fused      bool
}{{"gcn", "gcn", false}, {"gcn_fused", "gcn", true}, {"gatv2", "gatv2", false}, {"gatv2_fused", "gatv2", true}}

// poolPolicies emulate the garbage collections gnnlib/cuda's caching
// allocator starts (pool.go's gcDue), scaled from the arxiv-sized graph
// to n nodes: "1GiB", every 1 GiB handed out (tune.PoolGCFixed, as
// before), and "quarter", whenever a quarter of the bytes in use (at
// least 64 MiB) has been handed out since the last one, the default.
func poolPolicies(n int) map[string]func(since, held int64) bool {
	scale := func(b int64) int64 { return b * int64(n) / arxivNodes }
	return map[string]func(since, held int64) bool{
		"1GiB":    func(since, _ int64) bool { return since > scale(1<<30) },
		"quarter": func(since, held int64) bool { return since > max(scale(64<<20), held/4) },
	}
}

// measurePool is measureEpoch's held peak of the third epoch on a Fake
// that collects as the allocator policy does (Fake.CollectWhen), less the
// parameters' state, per node.
func measurePool(tb testing.TB, kind string, n int, fused bool, policy func(since, held int64) bool) float64 {
	defer scaleRecompute(n)()
	g := memGraph(tb, n)
	dims := memDims(kind)
	dev := &devicetest.Fake{CollectWhen: policy}
	model := newMemModel(kind, dims, fused)
	nn.To(model, dev)
	x := tensor.Randn(1, n, dims[0]).To(dev)
	y := make([]int, n)
	for i := range y {
		y[i] = i % 40
	}
	opt := nn.NewAdam(model.Params(), 0.01, 0)
	epoch := func() {
		opt.ZeroGrad()
		loss := nn.CrossEntropy(model.Forward(g, x), y, nil)
		loss.Backward()
		opt.Step()
		loss.Item()
	}
	epoch()
	epoch()
	opt.ZeroGrad()
	dev.ResetPeak()
	epoch()
	peak := dev.MemStats().PeakHeld
	runtime.KeepAlive(x)
	params, _, _ := memFloor(kind, g, dims, model.Params())
	return float64(peak-params) / float64(n)
}

// TestPoolCollections checks, on the Fake ledger, that the allocator's
// default collections (a quarter of the bytes in use) leave the held
// peak of a training epoch (nn.ReLUDropout between the layers) no higher
// than collections every 1 GiB did, and logs both.
func TestPoolCollections(t *testing.T) {
	n := 4_000
	if testing.Short() {
		n = 1_000
	}
	pol := poolPolicies(n)
	for _, run := range memRuns {
		if !run.fused {
			continue
		}
		t.Run(run.name, func(t *testing.T) {
			fixed := measurePool(t, run.kind, n, true, pol["1GiB"])
			quarter := measurePool(t, run.kind, n, true, pol["quarter"])
			t.Logf("%s: held peak %.0f B/node collecting every 1 GiB (scaled), %.0f a quarter of the bytes in use", run.name, fixed, quarter)
			if quarter > fixed {
				t.Errorf("held peak %.0f B/node with the quarter rule, over %.0f with 1 GiB", quarter, fixed)
			}
		})
	}
}

// TestEpochDeviceMemory measures a GCN and a GATv2 training epoch on the
// Fake and checks that the epoch leaves nothing behind but the model's
// state: once the loss is dropped, what stays live is the parameters,
// their gradients and moments, the features and the graph.
func TestEpochDeviceMemory(t *testing.T) {
	n := 4_000 // BenchmarkEpochDeviceMemory measures 20,000
	if testing.Short() {
		n = 1_000
	}
	for _, run := range memRuns {
		kind := run.kind
		t.Run(run.name, func(t *testing.T) {
			m := measureEpoch(t, kind, n, run.fused)
			t.Log(m.report(run.name))
			// The loss gradient is not kept after the epoch.
			last := int64(memDims(kind)[len(memDims(kind))-1])
			if want := m.resident - 4*int64(n)*last; m.after != want {
				t.Errorf("live after the epoch = %d bytes, want %d (parameters, gradients, moments, features, graph)", m.after, want)
			}
			if m.peakLive < m.floor {
				t.Errorf("peak live %d bytes below the floor %d: the ledger misses storage", m.peakLive, m.floor)
			}
		})
	}
}

// BenchmarkEpochDeviceMemory reports the Fake's peaks of one epoch, in
// bytes per node and extrapolated to the arxiv-sized graph in GiB; the
// time is the measurement's (a collection before every allocation), not
// an epoch's.
func BenchmarkEpochDeviceMemory(b *testing.B) {
	for _, run := range memRuns {
		b.Run(run.name, func(b *testing.B) {
			var m epochMemory
			for b.Loop() {
				m = measureEpoch(b, run.kind, 20_000, run.fused)
			}
			b.ReportMetric(m.perNode(m.peakLive), "live-B/node")
			b.ReportMetric(m.perNode(m.peakHeld), "held-B/node")
			b.ReportMetric(m.perNode(m.floor), "floor-B/node")
			b.ReportMetric(m.arxiv(m.peakLive)/(1<<30), "arxiv-live-GiB")
			b.ReportMetric(m.arxiv(m.peakHeld)/(1<<30), "arxiv-held-GiB")
			b.ReportMetric(m.arxiv(m.floor)/(1<<30), "arxiv-floor-GiB")
			for name, pol := range poolPolicies(20_000) {
				per := measurePool(b, run.kind, 20_000, run.fused, pol)
				b.ReportMetric((float64(m.params)+per*arxivNodes)/(1<<30), "arxiv-pool"+name+"-GiB")
			}
		})
	}
}

// TestFusedLayersMatchOps checks that GCNConv and GATv2Conv on a device,
// which run as one op each and free their intermediates, give the values
// and gradients of the ops they stand for, bit for bit (GATv2Conv's, with
// nn.GATv2OneProduct, one product x·[W_src W_dst] read as its halves).
func TestFusedLayersMatchOps(t *testing.T) {
	g := memGraph(t, 300)
	defer func(on bool) { nn.GCNAggregateFirst = on }(nn.GCNAggregateFirst)
	nn.GCNAggregateFirst = true
	for _, kind := range []string{"gcn", "gcn_widening", "gatv2"} {
		t.Run(kind, func(t *testing.T) {
			dev := &devicetest.Fake{}
			var layer nn.GraphLayer
			var byOps func(x *tensor.Tensor) *tensor.Tensor
			switch kind {
			case "gcn":
				c := nn.NewGCNConv(16, 8)
				layer = c
				byOps = func(x *tensor.Tensor) *tensor.Tensor { return nn.SpMM(g.GCNNorm(), x.MatMul(c.W)).Add(c.B) }
			case "gcn_widening": // 16 -> 32 aggregates first (GCNAggregateFirst on)
				c := nn.NewGCNConv(16, 32)
				layer = c
				byOps = func(x *tensor.Tensor) *tensor.Tensor { return nn.SpMM(g.GCNNorm(), x).MatMul(c.W).Add(c.B) }
			case "gatv2":
				c := nn.NewGATv2Conv(16, 4, 2, true, 0) // two heads of 4, concatenated: 8 wide
				layer = c
				byOps = func(x *tensor.Tensor) *tensor.Tensor {
					hs, hd := x.MatMul(c.WSrc), x.MatMul(c.WDst)
					if nn.GATv2OneProduct { // x·[W_src W_dst], read as its halves
						hlr := x.MatMul(tensor.Concat(1, c.WSrc, c.WDst))
						hs, hd = hlr.Narrow(1, 0, 8), hlr.Narrow(1, 8, 8)
					}
					return nn.GATv2Attention(g.AddSelfLoops(), hs, hd, c.Att, 2, c.NegativeSlope, 0, nil, true).Add(c.B)
				}
			}
			nn.To(layer, dev)
			x := tensor.Randn(3, 300, 16).To(dev).Detach().SetRequiresGrad(true)
			outW := 8
			if kind == "gcn_widening" {
				outW = 32
			}
			w := tensor.Randn(4, 300, outW).To(dev)
			run := func(f func(*tensor.Tensor) *tensor.Tensor) (out []float32, grads [][]float32) {
				x.ZeroGrad()
				for _, p := range layer.Params() {
					p.ZeroGrad()
				}
				y := f(x)
				y.Mul(w).Sum().Backward()
				for _, p := range append([]*tensor.Tensor{x}, layer.Params()...) {
					grads = append(grads, p.Grad().CPU().Data())
				}
				return y.CPU().Data(), grads
			}
			fused, fusedGrads := run(func(x *tensor.Tensor) *tensor.Tensor { return layer.Forward(g, x) })
			ops, opsGrads := run(byOps)
			if !slices.Equal(fused, ops) {
				t.Errorf("Forward differs from the ops it stands for")
			}
			for i := range opsGrads {
				if !slices.Equal(fusedGrads[i], opsGrads[i]) {
					t.Errorf("gradient %d differs from the ops'", i)
				}
			}
		})
	}
}

// TestTapeKeepsNoSpentInput checks that the autograd tape does not keep
// the device memory of an intermediate that no backward function reads
// (a ReLU's input), that the gradients are the CPU's, and that a
// gradient asked of such an intermediate after it was used still arrives.
func TestTapeKeepsNoSpentInput(t *testing.T) {
	dev := &devicetest.Fake{}
	xc, wc := tensor.Randn(2, 100, 64), tensor.Randn(1, 64, 32).SetRequiresGrad(true)
	x, w := xc.To(dev), wc.Detach().To(dev).SetRequiresGrad(true)
	r := x.MatMul(w).ReLU() // the product is the ReLU's input only
	dev.ResetPeak()
	if got, want := dev.MemStats().Live, int64(4*(100*64+64*32+100*32)); got != want {
		t.Errorf("live = %d bytes, want %d (x, w and the ReLU's output; not its input)", got, want)
	}
	r.Sum().Backward()
	xc.MatMul(wc).ReLU().Sum().Backward()
	if got, want := w.Grad().CPU().Data(), wc.Grad().Data(); !slices.Equal(got, want) {
		t.Errorf("w's gradient on the device differs from the CPU's")
	}

	k := x.MatMul(w)
	r = k.ReLU()
	k.SetRequiresGrad(true) // after the ReLU recorded it
	r.Sum().Backward()
	if k.Grad() == nil {
		t.Fatal("k.Grad() = nil after SetRequiresGrad on the intermediate")
	}
	kv, gv := k.CPU().Data(), k.Grad().CPU().Data()
	for i := range kv {
		if want := ifPositive(kv[i]); gv[i] != want {
			t.Fatalf("k.Grad()[%d] = %g for k %g, want %g", i, gv[i], kv[i], want)
		}
	}
}

func ifPositive(v float32) float32 {
	if v > 0 {
		return 1
	}
	return 0
}

// TestSecondBackwardOnDevice checks that a backward pass releases what a
// device op saved, so that a second pass through it panics with a
// *tensor.DeviceError, while the CPU's tape can be backpropagated again.
func TestSecondBackwardOnDevice(t *testing.T) {
	w := tensor.Randn(1, 8, 4).SetRequiresGrad(true)
	x := tensor.Randn(2, 5, 8)
	loss := x.MatMul(w).ReLU().Sum()
	loss.Backward()
	loss.Backward() // the CPU keeps the tape
	dev := &devicetest.Fake{}
	wd := w.Detach().To(dev).SetRequiresGrad(true)
	loss = x.To(dev).MatMul(wd).ReLU().Sum()
	loss.Backward()
	defer func() {
		var de *tensor.DeviceError
		if err, _ := recover().(error); !errors.As(err, &de) {
			t.Errorf("second backward pass on the device: recovered %v, want a *tensor.DeviceError", err)
		}
	}()
	loss.Backward()
}

// TestGATv2ConvKeeps checks what a GATv2Conv layer followed by
// nn.ReLUDropout keeps on a device between the forward and the backward
// pass: x·W_src, x·W_dst (one block x·[W_src W_dst] with
// nn.GATv2OneProduct, and [W_src W_dst]) and the activation, which the next layer keeps
// anyway (the attention output is rebuilt from the activation by the
// backward pass, nn.GATv2OutOps), against x·W_src, x·W_dst, the attention
// output and the activation when a ReLU and a Dropout layer follow; and
// that the gradients are those of the two ops, whose layer keeps the
// attention output (the Fake checks the rebuilt output against the one
// the forward pass made wherever its gradient is not zero), and the
// layer's output, still held by the caller, is intact.
func TestGATv2ConvKeeps(t *testing.T) {
	defer func(on bool) { nn.RebuildGATv2Output = on }(nn.RebuildGATv2Output)
	nn.RebuildGATv2Output = true
	const n, in, heads, c = 400, 16, 2, 8
	g := memGraph(t, n)
	f := int64(heads * c)
	for _, fused := range []bool{false, true} {
		t.Run(fmt.Sprintf("ReLUDropout=%v", fused), func(t *testing.T) {
			dev := &devicetest.Fake{}
			conv := nn.NewGATv2Conv(in, c, heads, true, 0)
			drop := nn.NewDropout(0.5)
			nn.To(conv, dev)
			x := tensor.Randn(5, n, in).To(dev).Detach().SetRequiresGrad(true)
			w := tensor.Randn(6, n, heads*c).To(dev)
			act := func(y *tensor.Tensor) *tensor.Tensor {
				if fused {
					return nn.ReLUDropout(y, drop)
				}
				return drop.Forward(y.ReLU())
			}
			conv.Forward(g, x).Sum().Backward() // the device graph is charged now
			dev.ResetPeak()
			before := dev.MemStats().Live
			h := act(conv.Forward(g, x))
			dev.ResetPeak()
			kept := dev.MemStats().Live - before
			want := 4 * int64(n) * f * 3 // x·W_src, x·W_dst, the activation
			if !fused {
				want += 4 * int64(n) * f * 2 // the attention output, ReLU's output
			}
			if nn.GATv2OneProduct {
				want += 4 * in * 2 * f // [W_src W_dst], for x's gradient
			}
			if kept != want {
				t.Errorf("kept %d bytes between the passes, want %d (%d nodes × %d channels × %d tensors)", kept, want, n, f, want/(4*int64(n)*f))
			}
			h.Mul(w).Sum().Backward()
			if x.Grad() == nil {
				t.Fatal("no gradient for x")
			}
		})
	}

	// The gradients with the activation handed off equal those of the
	// layer that keeps its attention output, from the same weights and
	// dropout draws; the caller's output stays readable. With residual
	// the output is read by another op too (h + y), so that its gradient
	// is not zero where the activation is: the backward pass must not
	// use the output rebuilt from the activation there.
	for _, residual := range []bool{false, true} {
		t.Run(fmt.Sprintf("gradients/residual=%v", residual), func(t *testing.T) {
			checkHandOffGrads(t, g, residual)
		})
	}
}

// checkHandOffGrads is TestGATv2ConvKeeps' comparison of gradients.
func checkHandOffGrads(t *testing.T, g *graph.Graph, residual bool) {
	const n, in, heads, c = 400, 16, 2, 8
	grads := func(fused bool) (out []float32, gs [][]float32) {
		dev := &devicetest.Fake{}
		nn.Seed(7)
		conv := nn.NewGATv2Conv(in, c, heads, true, 0)
		drop := nn.NewDropout(0.5)
		nn.To(conv, dev)
		x := tensor.Randn(5, n, in).To(dev).Detach().SetRequiresGrad(true)
		w := tensor.Randn(6, n, heads*c).To(dev)
		y := conv.Forward(g, x)
		var h *tensor.Tensor
		if fused {
			h = nn.ReLUDropout(y, drop)
		} else {
			h = drop.Forward(y.ReLU())
		}
		if residual {
			h = h.Add(y)
		}
		h.Mul(w).Sum().Backward()
		for _, p := range append([]*tensor.Tensor{x}, conv.Params()...) {
			gs = append(gs, p.Grad().CPU().Data())
		}
		return y.CPU().Data(), gs
	}
	y0, g0 := grads(false)
	y1, g1 := grads(true)
	if !slices.Equal(y0, y1) {
		t.Errorf("the layer's output differs with ReLUDropout after it")
	}
	for i := range g0 {
		for j := range g0[i] {
			if d := math.Abs(float64(g0[i][j] - g1[i][j])); d > 1e-5*(1+math.Abs(float64(g0[i][j]))) {
				t.Errorf("gradient %d[%d] = %g with the activation handed off, %g with the attention output kept", i, j, g1[i][j], g0[i][j])
				break
			}
		}
	}
}
