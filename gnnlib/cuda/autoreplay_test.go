package cuda

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestReplayChooser checks the automatic choice's rule on spans of the
// H100 epochs it was drawn from (BENCHMARKS.md, 2026-12-06 08:40: launches
// per epoch and the epoch's time kernel by kernel and replayed): the
// Cora-sized epochs turn replay on after three of them and keep it on
// when replayed; the arxiv-sized ones keep it off, and turn it off again
// after three replayed epochs; spans of few launches and spans between
// the two thresholds change nothing.
func TestReplayChooser(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	type span struct {
		n  int64
		dt time.Duration
	}
	rep := func(s span, k int) []span {
		var out []span
		for range k {
			out = append(out, s)
		}
		return out
	}
	coraGCN, coraSAGE := span{30, ms(1.298)}, span{32, ms(2.446)}
	coraGCNReplayed := span{30, ms(0.348)}
	arxivGCN, arxivGATv2 := span{30, ms(7.241)}, span{52, ms(17.128)}
	arxivGCNReplayed := span{30, ms(9.287)}
	between := span{30, ms(30 * 0.13)} // 130 µs a launch
	// The products-sized sampled GraphSAGE step on an H200 (2026-12-07,
	// sampler launches included): 3.75 ms launched one by one, 4.25 ms
	// replayed.
	sampled, sampledReplayed := span{126, ms(3.75)}, span{126, ms(4.25)}
	cases := []struct {
		name  string
		start bool
		spans []span
		want  []bool // the choice after each span
	}{
		{"Cora GCN", false, rep(coraGCN, 4), []bool{false, false, true, true}},
		{"Cora GraphSAGE", false, rep(coraSAGE, 3), []bool{false, false, true}},
		{"Cora GCN replayed", true, rep(coraGCNReplayed, 4), []bool{true, true, true, true}},
		{"arxiv GCN", false, rep(arxivGCN, 4), []bool{false, false, false, false}},
		{"arxiv GATv2", false, rep(arxivGATv2, 3), []bool{false, false, false}},
		{"arxiv GCN replayed", true, rep(arxivGCNReplayed, 4), []bool{true, true, false, false}},
		{"Cora then arxiv", false, append(rep(coraGCN, 3), rep(arxivGCNReplayed, 3)...), []bool{false, false, true, true, true, false}},
		{"alternating", false, []span{coraGCN, arxivGCN, coraGCN, arxivGCN, coraGCN}, []bool{false, false, false, false, false}},
		{"short spans ignored", false, append(rep(coraGCN, 2), span{2, ms(0.001)}, coraGCN), []bool{false, false, false, true}},
		{"between the thresholds", true, rep(between, 4), []bool{true, true, true, true}},
		{"between the thresholds, off", false, rep(between, 4), []bool{false, false, false, false}},
		// Replay must pay: the spans after the one that records must be
		// faster than those that turned it on.
		{"Cora GCN, replay faster", false, append(rep(coraGCN, 3), rep(coraGCNReplayed, 6)...), []bool{false, false, true, true, true, true, true, true, true}},
		{"sampled steps, replay slower", false, append(rep(sampled, 3), rep(sampledReplayed, 4)...), []bool{false, false, true, true, true, true, false}},
		{"replay as fast", false, append(rep(coraGCN, 3), rep(coraGCN, 4)...), []bool{false, false, true, true, true, true, false}},
		{"one slow replayed span", false, append(rep(coraGCN, 3), coraGCNReplayed, coraGCN, coraGCNReplayed, coraGCNReplayed), []bool{false, false, true, true, true, true, true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch := replayChooser{on: c.start}
			for i, s := range c.spans {
				if got := ch.observe(s.n, s.dt); got != c.want[i] {
					t.Errorf("after span %d (%d launches in %v): replay %v, want %v", i, s.n, s.dt, got, c.want[i])
				}
			}
		})
	}
}

// TestReplayChooserRetry checks that replay, once no faster than
// launching one by one, is tried again only after replayRetrySpans spans,
// that describe says what it measured, and that replay that pays stays
// on without the chooser keeping every span.
func TestReplayChooserRetry(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	var ch replayChooser
	for range 3 {
		ch.observe(126, ms(3.75))
	}
	if !ch.on {
		t.Fatal("three spans at 30 µs a launch did not turn replay on")
	}
	for range 4 {
		ch.observe(126, ms(4.25))
	}
	if ch.on {
		t.Fatal("replayed spans at 34 µs a launch against 30 one by one left replay on")
	}
	if d := ch.describe(); !strings.Contains(d, "33.7µs a launch against 29.8µs one by one") || !strings.Contains(d, "tried again in 64 spans") {
		t.Errorf("describe after replay lost: %s", d)
	}
	for i := 1; i <= replayRetrySpans; i++ {
		if on := ch.observe(126, ms(3.75)); on != (i == replayRetrySpans) {
			t.Fatalf("span %d launched one by one after replay lost: replay %v", i, on)
		}
	}
	// Replay that pays stays on, and the chooser stops keeping spans
	// once it has compared them.
	var cora replayChooser
	for range 3 {
		cora.observe(30, ms(1.298))
	}
	for i := range 1000 {
		if !cora.observe(30, ms(0.348)) {
			t.Fatalf("replayed Cora-sized span %d (12 µs a launch against 43) turned replay off", i)
		}
	}
	if len(cora.replayed) > replaySpans {
		t.Errorf("after 1000 replayed spans the chooser keeps %d of them", len(cora.replayed))
	}
}

// autoStep is a launch-bound step of 12 launches on d ending in a copy to
// the host, which waits: the span the automatic choice measures.
func autoStep(t *testing.T, d *Device, g *Graph, step int) {
	t.Helper()
	const n, c = 300, 8
	x, _ := d.Empty(n, c)
	b, _ := d.Empty(1, c)
	y, _ := d.Empty(n, c)
	z, _ := d.Empty(n, c)
	defer freeAll([]*Tensor{x, b, y, z})
	for _, err := range []error{x.Fill(float32(step)), b.Fill(0.5)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		for _, err := range []error{
			BiasAct(y, x, b, true, 0.5, uint64(100*step+i)),
			SpMM(z, g, y, SpMMAuto),
			ActBackward(x, y, z, true, 0.5),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := x.Host(); err != nil {
		t.Fatal(err)
	}
}

// TestAutoReplayTrace checks AutoReplay without a GPU, on the recording
// driver with a clock that charges each launch a set time: steps at 20 µs
// a launch turn replay on after three steps and are then replayed as
// graphs; steps at 1 ms a launch turn it off again after three; through
// it all the driver sees the launches of the eager run, in its order.
// Mapping says what was chosen and why.
func TestAutoReplayTrace(t *testing.T) {
	defer func(old bool) { GraphReplay = old }(GraphReplay)
	GraphReplay = false
	defer pinAutoReplay(true)() // for Mapping after the runs
	const steps = 12
	run := func(auto bool) (*Device, *recordDriver, []bool) {
		defer pinAutoReplay(auto)()
		d, drv := openRecorder(t)
		per := 20 * time.Microsecond
		base := time.Now()
		var elapsed time.Duration
		last := int64(0)
		d.clock = func() time.Time {
			// Replay makes a launch cheaper: a quarter of the time.
			n, p := d.launches.Load(), per
			if d.replaying() {
				p /= 4
			}
			elapsed += time.Duration(n-last) * p
			last = n
			return base.Add(elapsed)
		}
		g := starGraph(t, d, 300)
		drv.trace = nil
		var chosen []bool
		for s := range steps {
			if s == 6 {
				per = time.Millisecond
			}
			autoStep(t, d, g, s)
			chosen = append(chosen, d.replaying())
		}
		return d, drv, chosen
	}
	_, eager, _ := run(false)
	d, auto, chosen := run(true)
	if len(auto.trace) != len(eager.trace) {
		t.Fatalf("automatic steps ran %d launches and fills, eager ones %d", len(auto.trace), len(eager.trace))
	}
	for i := range eager.trace {
		if !auto.trace[i].same(&eager.trace[i]) {
			t.Fatalf("node %d: automatic %+v, eager %+v", i, auto.trace[i], eager.trace[i])
		}
	}
	// The first step only starts the clock; steps 1-3 are three fast
	// spans (20 µs a launch) and turn replay on; step 4 records, step 5
	// replays at 5 µs a launch; the slow ones begin at step 6 (its span
	// ends there), and step 7 makes the replayed spans' median (1 ms a
	// launch) no faster than the 20 µs that turned replay on: off.
	want := []bool{false, false, false, true, true, true, true, false, false, false, false, false}
	for i := range want {
		if chosen[i] != want[i] {
			t.Errorf("replaying after step %d: %v, want %v (all: %v)", i, chosen[i], want[i], chosen)
			break
		}
	}
	st := d.ReplayStats()
	t.Logf("%+v; %s", st, d.Mapping())
	if st.Replays == 0 {
		t.Error("no step was replayed as a graph")
	}
	if m := d.Mapping(); !strings.Contains(m, "chosen automatically") || !strings.Contains(m, "launches: each a round trip") {
		t.Errorf("Mapping after the slow steps does not say that launches go one by one, chosen automatically:\n%s", m)
	}
}

// TestAutoReplayEpochs trains GCN and GATv2 through gnnlib/nn on the GPU
// kernel by kernel and with the automatic choice: the losses and trained
// weights must agree, and on this small graph (launch-bound) the choice
// must turn replay on and replay epochs as graphs.
func TestAutoReplayEpochs(t *testing.T) {
	d := defaultOrSkip(t)
	defer func(old bool) { GraphReplay = old }(GraphReplay)
	GraphReplay = false
	hg := testGraph(t, 600, 3600, false)
	const in, hidden, classes, epochs = 32, 16, 8, 12
	xs := tensor.Randn(11, hg.NumNodes(), in)
	labels := make([]int, hg.NumNodes())
	for i := range labels {
		labels[i] = i % classes
	}
	train := func(kind string, auto bool) ([]float32, [][]float32) {
		defer pinAutoReplay(auto)()
		d.chooser = replayChooser{}
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
	for _, kind := range []string{"gcn", "gatv2"} {
		t.Run(kind, func(t *testing.T) {
			want, wantP := train(kind, false)
			before := d.ReplayStats()
			got, gotP := train(kind, true)
			after := d.ReplayStats()
			t.Logf("losses %v; replays %d; %s", got, after.Replays-before.Replays, d.chooser.describe())
			for i := range want {
				if diff := math.Abs(float64(got[i] - want[i])); diff > 1e-5*math.Max(1, math.Abs(float64(want[i]))) {
					t.Errorf("epoch %d: loss %v with the automatic choice, %v kernel by kernel", i, got[i], want[i])
				}
			}
			for i := range wantP {
				for j := range wantP[i] {
					if diff := math.Abs(float64(gotP[i][j] - wantP[i][j])); diff > 1e-5 {
						t.Fatalf("parameter %d[%d] = %v with the automatic choice, %v kernel by kernel", i, j, gotP[i][j], wantP[i][j])
					}
				}
			}
			if after.Replays == before.Replays {
				t.Errorf("no epoch replayed as a graph: %s", d.chooser.describe())
			}
			if after.Failed != before.Failed {
				t.Errorf("the driver refused %d graphs or updates", after.Failed-before.Failed)
			}
		})
	}
}

// TestAutoReplayBlocks checks that blocks coming to the device turn the
// automatic choice to launching one by one, on the recording driver with
// a clock at 20 µs a launch (replay's range): replay is on after three
// fast steps, off as soon as UploadBlocks is called, stays off for
// replayRetrySpans spans and then comes back; Mapping says why.
func TestAutoReplayBlocks(t *testing.T) {
	defer func(old bool) { GraphReplay = old }(GraphReplay)
	GraphReplay = false
	defer pinAutoReplay(true)()
	d, _ := openRecorder(t)
	base, n0 := time.Now(), int64(0)
	d.clock = func() time.Time { return base.Add(time.Duration(d.launches.Load()-n0) * 20 * time.Microsecond) }
	g := starGraph(t, d, 300)
	n0 = d.launches.Load()
	for s := range 4 {
		autoStep(t, d, g, s)
	}
	if !d.replaying() {
		t.Fatal("four steps at 20 µs a launch did not turn replay on")
	}
	host, err := graph.ErdosRenyiM(400, 3000, 1)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := data.SampleBlocks(host, []int{1, 5, 9}, []int{4, 3}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.UploadBlocks(blocks, nil); err != nil {
		t.Fatal(err)
	}
	if d.replaying() {
		t.Fatal("UploadBlocks left replay on")
	}
	if m := d.Mapping(); !strings.Contains(m, "one by one while sampled blocks come to the device (1 so far") {
		t.Errorf("Mapping after UploadBlocks does not say why launches go one by one:\n%s", m)
	}
	for s := range replayRetrySpans + replaySpans {
		autoStep(t, d, g, s)
		if s < replayRetrySpans-1 && d.replaying() {
			t.Fatalf("replay back on %d spans after the blocks, want %d", s+1, replayRetrySpans)
		}
	}
	if !d.replaying() {
		t.Errorf("replay not back on %d fast spans after the blocks", replayRetrySpans+replaySpans)
	}
}
