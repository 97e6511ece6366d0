package cuda

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// The recording driver's graphs (attnrows_test.go): a graph is its nodes,
// and launching it runs them through launch and memsetD32, so that the
// trace holds what the device would run, graph or not.
type recordGraph struct{ nodes []graphNode }

func cloneNodes(ns []graphNode) []graphNode {
	out := slices.Clone(ns)
	for i := range out {
		out[i].args = slices.Clone(out[i].args)
	}
	return out
}

func (r *recordDriver) graphMake(nodes []graphNode) (graphExec, error) {
	r.graphs++
	return &recordGraph{nodes: cloneNodes(nodes)}, nil
}

func (r *recordDriver) graphSet(g graphExec, i int, n *graphNode) error {
	r.updates++
	rg := g.(*recordGraph)
	rg.nodes[i] = cloneNodes([]graphNode{*n})[0]
	return nil
}

func (r *recordDriver) graphLaunch(g graphExec) error {
	return runNodes(r, g.(*recordGraph).nodes)
}

func (r *recordDriver) graphFree(graphExec) {}

// replayStep is a launch-bound step on d: fills, a bias + ReLU + dropout
// whose seed changes every step, an SpMM over a star with a heavy row (a
// split pass: several kernels), the activation's backward, and a copy to
// the host that waits. Every buffer is freed explicitly, so that two
// devices that run the same steps allocate the same addresses.
func replayStep(t *testing.T, d *Device, g *Graph, step int) {
	t.Helper()
	const n, c = 300, 8
	x, _ := d.Empty(n, c)
	b, _ := d.Empty(1, c)
	y, _ := d.Empty(n, c)
	z, _ := d.Empty(n, c)
	dx, _ := d.Empty(n, c)
	defer freeAll([]*Tensor{x, b, y, z, dx})
	for _, err := range []error{
		x.Fill(float32(step)),
		b.Fill(0.5),
		BiasAct(y, x, b, true, 0.5, uint64(1000+step)),
		SpMM(z, g, y, SpMMAuto),
		ActBackward(dx, y, z, true, 0.5),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := dx.Host(); err != nil {
		t.Fatal(err)
	}
}

// TestGraphReplayTrace checks GraphReplay without a GPU: the same steps
// run eagerly on one recording device and with GraphReplay on another
// must put the same launches and fills, with the same arguments, in the
// same order on the device; from the second step on, the replaying device
// runs each step as a graph built once, whose changed arguments (the
// dropout seed, the fill value) are updated before each replay.
func TestGraphReplayTrace(t *testing.T) {
	defer pinAutoReplay(false)()
	defer func(old bool) { GraphReplay = old }(GraphReplay)
	const steps = 5
	run := func(replay bool) (*Device, *recordDriver) {
		GraphReplay = replay
		d, drv := openRecorder(t)
		g := starGraph(t, d, 300)
		drv.trace = nil
		for s := range steps {
			replayStep(t, d, g, s)
		}
		return d, drv
	}
	_, eager := run(false)
	d, replay := run(true)
	if len(eager.trace) == 0 {
		t.Fatal("the eager steps launched nothing")
	}
	if len(replay.trace) != len(eager.trace) {
		t.Fatalf("replayed steps ran %d launches and fills, eager ones %d", len(replay.trace), len(eager.trace))
	}
	for i := range eager.trace {
		if !replay.trace[i].same(&eager.trace[i]) {
			t.Fatalf("node %d: replayed %+v, eager %+v", i, replay.trace[i], eager.trace[i])
		}
	}
	st := d.ReplayStats()
	t.Logf("%d launches and fills in %d steps; %+v", len(eager.trace), steps, st)
	if replay.graphs != 1 || st.Built != 1 {
		t.Errorf("%d graphs made (stats: %d), want 1: the step's segment, built at its second run", replay.graphs, st.Built)
	}
	if st.Replays != steps-1 {
		t.Errorf("%d replays in %d steps, want %d", st.Replays, steps, steps-1)
	}
	if replay.updates == 0 || st.Updates != int64(replay.updates) {
		t.Errorf("%d node updates (stats: %d), want some: the seed and the fill value change every step", replay.updates, st.Updates)
	}
	if st.EagerNodes == 0 {
		t.Error("no node ran eagerly: the first step should have")
	}
}

// TestGraphReplaySegment checks ReplaySegment without a GPU: with the
// segment cut every 4 launches and fills as well as at each step's read
// back, the replaying device still puts the eager device's launches and
// fills on the device in the same order with the same arguments, sends
// more than one segment a step, and replays the step's full-length
// segment as a graph from its second run on.
func TestGraphReplaySegment(t *testing.T) {
	defer pinAutoReplay(false)()
	defer func(old bool, seg int) { GraphReplay, ReplaySegment = old, seg }(GraphReplay, ReplaySegment)
	const steps = 5
	run := func(replay bool, seg int) (*Device, *recordDriver) {
		GraphReplay, ReplaySegment = replay, seg
		d, drv := openRecorder(t)
		g := starGraph(t, d, 300)
		drv.trace = nil
		for s := range steps {
			replayStep(t, d, g, s)
		}
		return d, drv
	}
	_, eager := run(false, 0)
	d, replay := run(true, 4)
	perStep := len(eager.trace) / steps
	if perStep <= 4 {
		t.Fatalf("a step has %d launches and fills, want more than the segment's 4", perStep)
	}
	if len(replay.trace) != len(eager.trace) {
		t.Fatalf("replayed steps ran %d launches and fills, eager ones %d", len(replay.trace), len(eager.trace))
	}
	for i := range eager.trace {
		if !replay.trace[i].same(&eager.trace[i]) {
			t.Fatalf("node %d: replayed %+v, eager %+v", i, replay.trace[i], eager.trace[i])
		}
	}
	st := d.ReplayStats()
	t.Logf("%d launches and fills a step, segments of 4: %+v", perStep, st)
	if want := int64(steps * ((perStep + 3) / 4)); st.Segments < want {
		t.Errorf("%d segments in %d steps of %d nodes, want at least %d", st.Segments, steps, perStep, want)
	}
	if st.Built < 1 || st.Replays < steps-1 {
		t.Errorf("built %d graphs, replayed %d, want at least 1 and %d: the 4-node segment repeats every step", st.Built, st.Replays, steps-1)
	}
	if st.ReplayNodes%4 != 0 {
		t.Errorf("%d nodes replayed, want a multiple of 4 (only full segments reach minGraphNodes here)", st.ReplayNodes)
	}
}

// TestGraphReplayError checks that a kernel that fails inside a replayed
// graph is reported by the next call that waits, as a posted launch's
// error is.
func TestGraphReplayError(t *testing.T) {
	defer pinAutoReplay(false)()
	defer func(old bool) { GraphReplay = old }(GraphReplay)
	GraphReplay = true
	d, drv := openRecorder(t)
	g := starGraph(t, d, 300)
	for s := range 3 {
		replayStep(t, d, g, s)
	}
	if d.ReplayStats().Replays == 0 {
		t.Fatal("no replay in 3 steps")
	}
	drv.fail = "bias_act"
	x, _ := d.Empty(300, 8)
	b, _ := d.Empty(1, 8)
	y, _ := d.Empty(300, 8)
	z, _ := d.Empty(300, 8)
	dx, _ := d.Empty(300, 8)
	x.Fill(1)
	b.Fill(0.5)
	BiasAct(y, x, b, true, 0.5, 7)
	SpMM(z, g, y, SpMMAuto)
	ActBackward(dx, y, z, true, 0.5)
	_, err := dx.Host()
	if err == nil {
		t.Fatal("Host() after a failing kernel in a replayed graph = nil error")
	}
	t.Logf("error: %v", err)
	drv.fail = ""
	if _, err := dx.Host(); err != nil {
		t.Errorf("second Host() = %v, want nil (the error was reported once)", err)
	}
	var closed error
	d.Close()
	if err := x.Fill(2); !errors.Is(err, ErrClosed) {
		closed = err
		t.Errorf("Fill after Close = %v, want ErrClosed", closed)
	}
}

// replayNet is two graph convolutions with nn.ReLUDropout (p 0.5) between
// them, as gnnbench's api epochs build them.
type replayNet struct {
	nn.Mode
	a, b nn.GraphLayer
	drop *nn.Dropout
}

func (m *replayNet) Params() []*tensor.Tensor { return append(m.a.Params(), m.b.Params()...) }

func (m *replayNet) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	return m.b.Forward(g, nn.ReLUDropout(m.a.Forward(g, x), m.drop))
}

func newReplayNet(kind string, in, hidden, out int) *replayNet {
	m := &replayNet{drop: nn.NewDropout(0.5)}
	switch kind {
	case "gcn":
		m.a, m.b = nn.NewGCNConv(in, hidden), nn.NewGCNConv(hidden, out)
	case "sage":
		m.a, m.b = nn.NewSAGEConv(in, hidden, "mean"), nn.NewSAGEConv(hidden, out, "mean")
	case "gat":
		m.a, m.b = nn.NewGATConv(in, hidden, 1, true, 0), nn.NewGATConv(hidden, out, 1, true, 0)
	case "gatv2":
		m.a, m.b = nn.NewGATv2Conv(in, hidden, 1, true, 0), nn.NewGATv2Conv(hidden, out, 1, true, 0)
	}
	return m
}

// TestGraphReplayEpochs trains GCN, GraphSAGE, GAT and GATv2 written with
// gnnlib/nn (dropout between the layers, Adam) on the GPU eagerly and
// with GraphReplay, from the same initial weights and dropout seeds: the
// losses of every epoch and the trained weights must agree, and the
// replaying run must have replayed its epochs as graphs; each model with
// segments cut only at the calls that wait and every 16 launches
// (ReplaySegment).
func TestGraphReplayEpochs(t *testing.T) {
	replayEpochs(t, defaultOrSkip(t))
}

// TestGraphReplayEpochsRecorder runs TestGraphReplayEpochs' epochs on
// the recording driver, which runs no kernel: the losses are not
// compared (all zero), but each model must still replay its epochs as
// graphs. GraphSAGE's epoch makes tensor ops whose results wait for the
// garbage collector, so it takes blocks from the driver every epoch;
// each such allocation once sent the recorded segment, cutting the
// epoch into pieces of one to three launches, too short to replay (0
// replays in 8 epochs, with segments cut only at calls that wait).
func TestGraphReplayEpochsRecorder(t *testing.T) {
	d, _ := openRecorder(t)
	replayEpochs(t, d)
}

// replayEpochs is TestGraphReplayEpochs on d.
func replayEpochs(t *testing.T, d *Device) {
	defer func(old bool) { GraphReplay = old }(GraphReplay)
	defer pinAutoReplay(false)()
	hg := testGraph(t, 600, 3600, false)
	const in, hidden, classes, epochs = 32, 16, 8, 8
	xs := tensor.Randn(11, hg.NumNodes(), in)
	labels := make([]int, hg.NumNodes())
	for i := range labels {
		labels[i] = i % classes
	}
	train := func(kind string, replay bool) ([]float32, [][]float32) {
		GraphReplay = replay
		defer func() { GraphReplay = false }()
		nn.Seed(26)
		m := newReplayNet(kind, in, hidden, classes)
		nn.To(m, d.Backend())
		x := xs.To(d.Backend())
		opt := nn.NewAdam(m.Params(), 0.01, 0)
		var losses []float32
		for range epochs {
			opt.ZeroGrad()
			loss := nn.CrossEntropy(m.Forward(hg, x), labels, nil)
			loss.Backward()
			opt.Step()
			losses = append(losses, loss.Item())
		}
		var ps [][]float32
		for _, p := range m.Params() {
			ps = append(ps, p.CPU().Data())
		}
		return losses, ps
	}
	defer func(seg int) { ReplaySegment = seg }(ReplaySegment)
	for _, run := range []struct {
		kind string
		seg  int
	}{{"gcn", 0}, {"sage", 0}, {"gat", 0}, {"gatv2", 0}, {"gcn", 16}, {"sage", 16}, {"gat", 16}, {"gatv2", 16}} {
		kind := run.kind
		t.Run(fmt.Sprintf("%s/segment=%d", kind, run.seg), func(t *testing.T) {
			ReplaySegment = run.seg
			want, wantP := train(kind, false)
			before := d.ReplayStats()
			got, gotP := train(kind, true)
			after := d.ReplayStats()
			t.Logf("losses %v; replays %d (%d nodes, %d updated), built %d, failed %d", got,
				after.Replays-before.Replays, after.ReplayNodes-before.ReplayNodes, after.Updates-before.Updates,
				after.Built-before.Built, after.Failed-before.Failed)
			for i := range want {
				if diff := math.Abs(float64(got[i] - want[i])); diff > 1e-5*math.Max(1, math.Abs(float64(want[i]))) {
					t.Errorf("epoch %d: loss %v with GraphReplay, %v without", i, got[i], want[i])
				}
			}
			for i := range wantP {
				for j := range wantP[i] {
					if diff := math.Abs(float64(gotP[i][j] - wantP[i][j])); diff > 1e-5 {
						t.Fatalf("parameter %d[%d] = %v with GraphReplay, %v without", i, j, gotP[i][j], wantP[i][j])
					}
				}
			}
			if after.Replays-before.Replays < epochs/2 {
				t.Errorf("%d graph replays in %d epochs, want at least %d", after.Replays-before.Replays, epochs, epochs/2)
			}
			if after.Failed != before.Failed {
				t.Errorf("the driver refused %d graphs or updates", after.Failed-before.Failed)
			}
		})
	}
}

// TestDeviceSuiteGraphReplay runs gnnlib/devicetest's suite (every op and
// layer against the CPU, training steps of the GNN models) with
// GraphReplay on, a segment sent every 16 launches and fills as well as at
// each call that waits (ReplaySegment).
func TestDeviceSuiteGraphReplay(t *testing.T) {
	d := defaultOrSkip(t)
	defer func(old bool, seg int) { GraphReplay, ReplaySegment = old, seg }(GraphReplay, ReplaySegment)
	GraphReplay, ReplaySegment = true, 16
	before := d.ReplayStats()
	devicetest.Run(t, d.be, devicetest.Tolerance{Op: 2e-4, Loss: 1e-4, Value: 1e-3})
	after := d.ReplayStats()
	t.Logf("replays %d (%d nodes), built %d, failed %d, segments %d", after.Replays-before.Replays,
		after.ReplayNodes-before.ReplayNodes, after.Built-before.Built, after.Failed-before.Failed, after.Segments-before.Segments)
	if after.Replays == before.Replays {
		t.Error("the suite replayed no graph")
	}
}

// pinAutoReplay sets AutoReplay for a test and returns the restore.
func pinAutoReplay(on bool) func() {
	old := AutoReplay
	AutoReplay = on
	return func() { AutoReplay = old }
}
