package cuda

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// The gnnlib/nn GATv2 epoch against the hand-written one (issue 26):
// what the nn layers' backward passes do beyond the hand-written epoch's
// kernels, each behind its own switch, checked on the recording driver
// (the launches) and on a device (the values, against the old path).

// gatv2Switches sets the switches of the nn GATv2 epoch's backward pass
// (nn.ActOutInAttention, nn.RebuildInActBackward, tune.UnbiasActOnePass)
// and returns a function restoring them.
func gatv2Switches(actOut, rebuild, onePass bool) func() {
	a, r, o := nn.ActOutInAttention, nn.RebuildInActBackward, tune.UnbiasActOnePass
	nn.ActOutInAttention, nn.RebuildInActBackward, tune.UnbiasActOnePass = actOut, rebuild, onePass
	return func() { nn.ActOutInAttention, nn.RebuildInActBackward, tune.UnbiasActOnePass = a, r, o }
}

// gatv2Variants are the nn GATv2 epochs profiled and listed: the
// defaults, then each switch off in turn (the last is the epoch before
// any of them; collect is nn.CollectAfterBackward).
var gatv2Variants = []struct {
	name                              string
	actOut, rebuild, onePass, collect bool
}{{"nn", true, true, true, true}, {"nn, rebuilt copy", false, true, true, true}, {"nn, two passes", false, false, true, true}, {"nn, unbias copied", false, false, false, true}, {"nn, no collection", false, false, false, false}}

// colKernelName is the name of the column reduction base as the epochs launch it
// at their widths (multiples of 4): its _v4 form while tune.ColSumVec4 is
// on.
func colKernelName(base string) string {
	if tune.ColSumVec4 {
		return base + "_v4"
	}
	return base
}

// unbiasLaunches lists the kernels of the third epoch of the
// arxiv-shaped nn GATv2 model (recording driver) with the switches set.
func unbiasLaunches(t *testing.T, actOut, rebuild, onePass bool) launchCount {
	defer gatv2Switches(actOut, rebuild, onePass)()
	defer fastPaths(true)()
	return nnGATv2EpochLaunches(t, epochGraph(t, 2000), []int{128, 256, 256, 64})
}

// TestRebuildInActBackwardLaunches checks that with
// nn.RebuildInActBackward each hidden GATv2 layer's backward pass makes
// its output's gradient, its bias gradient and its rebuilt attention
// output in one kernel (act_backward_colsum_unbias, reading the
// activation once) instead of two (act_backward_colsum, unbias_act_to):
// two launches fewer an epoch, where the hand-written epoch makes the two.
func TestRebuildInActBackwardLaunches(t *testing.T) {
	on, off := unbiasLaunches(t, false, true, true), unbiasLaunches(t, false, false, true)
	t.Logf("on: %d launches: %v", on.total(), on)
	t.Logf("on, more than off: %v; off, more than on: %v", on.diff(off), off.diff(on))
	if on[colKernelName("act_backward_colsum_unbias")] != 2 || on[colKernelName("act_backward_colsum")] != 0 || on["unbias_act_to"] != 0 {
		t.Errorf("with nn.RebuildInActBackward: act_backward_colsum_unbias ×%d, act_backward_colsum ×%d, unbias_act_to ×%d, want 2, 0, 0", on[colKernelName("act_backward_colsum_unbias")], on[colKernelName("act_backward_colsum")], on["unbias_act_to"])
	}
	if off[colKernelName("act_backward_colsum_unbias")] != 0 || off[colKernelName("act_backward_colsum")] != 2 || off["unbias_act_to"] != 2 {
		t.Errorf("without: act_backward_colsum_unbias ×%d, act_backward_colsum ×%d, unbias_act_to ×%d, want 0, 2, 2", off[colKernelName("act_backward_colsum_unbias")], off[colKernelName("act_backward_colsum")], off["unbias_act_to"])
	}
	if on.total() != off.total()-2 {
		t.Errorf("%d launches with nn.RebuildInActBackward, %d without, want 2 fewer", on.total(), off.total())
	}
}

// TestActOutInAttentionLaunches checks that with nn.ActOutInAttention
// each hidden GATv2 layer's backward pass makes its output's gradient and
// its bias gradient in one kernel (act_backward_colsum) and launches no
// kernel that rebuilds the attention output (act_backward_colsum_unbias,
// unbias_act_to, unbias_act): as many launches as with
// nn.RebuildInActBackward alone.
func TestActOutInAttentionLaunches(t *testing.T) {
	on, off := unbiasLaunches(t, true, true, true), unbiasLaunches(t, false, true, true)
	t.Logf("on: %d launches: %v", on.total(), on)
	if on[colKernelName("act_backward_colsum")] != 2 || on[colKernelName("act_backward_colsum_unbias")] != 0 || on["unbias_act_to"] != 0 || on["unbias_act"] != 0 {
		t.Errorf("with nn.ActOutInAttention: act_backward_colsum ×%d, act_backward_colsum_unbias ×%d, unbias_act_to ×%d, unbias_act ×%d, want 2, 0, 0, 0", on[colKernelName("act_backward_colsum")], on[colKernelName("act_backward_colsum_unbias")], on["unbias_act_to"], on["unbias_act"])
	}
	if on.total() != off.total() {
		t.Errorf("%d launches with nn.ActOutInAttention, %d with the rebuilt copy", on.total(), off.total())
	}
}

// TestUnbiasActOnePassLaunches checks that with tune.UnbiasActOnePass (and
// nn.RebuildInActBackward off) the nn GATv2 epoch rebuilds each hidden layer's attention output with
// unbias_act_to (one pass, no device-to-device copy before it) and
// launches unbias_act no more, and that off it launches unbias_act as
// before; the epochs launch as many kernels either way.
func TestUnbiasActOnePassLaunches(t *testing.T) {
	on, off := unbiasLaunches(t, false, false, true), unbiasLaunches(t, false, false, false)
	t.Logf("on: %v", on)
	if on["unbias_act_to"] != 2 || on["unbias_act"] != 0 {
		t.Errorf("with tune.UnbiasActOnePass: unbias_act_to ×%d, unbias_act ×%d, want 2 and 0 (two hidden GATv2 layers)", on["unbias_act_to"], on["unbias_act"])
	}
	if off["unbias_act_to"] != 0 || off["unbias_act"] != 2 {
		t.Errorf("without tune.UnbiasActOnePass: unbias_act_to ×%d, unbias_act ×%d, want 0 and 2", off["unbias_act_to"], off["unbias_act"])
	}
	if on.total() != off.total() {
		t.Errorf("%d launches with tune.UnbiasActOnePass, %d without", on.total(), off.total())
	}
}

// TestUnbiasActOnePass checks on a device that the backend's UnbiasAct
// (nn.GATv2OutOps) gives the same bits in one pass (unbias_act_to) as a
// copy turned back in place (unbias_act), for the fused layers' ReLU and
// dropout and for an output layer's bias alone, and leaves y as it was.
func TestUnbiasActOnePass(t *testing.T) {
	dev := defaultOrSkip(t)
	defer func(on bool) { tune.UnbiasActOnePass = on }(tune.UnbiasActOnePass)
	be := dev.be
	const rows, cols = 3001, 96
	// y as a layer's activation leaves it: zeros where ReLU or dropout
	// removed the value.
	yh := tensor.Randn(5, rows, cols)
	for i, v := range yh.Data() {
		if v < 0 || i%7 == 0 {
			yh.Data()[i] = 0
		}
	}
	y := yh.To(be)
	b := tensor.Randn(6, 1, cols).To(be)
	for _, c := range []struct {
		relu bool
		p    float32
	}{{true, 0.5}, {true, 0}, {false, 0.3}, {false, 0}} {
		run := func(onePass bool) []float32 {
			tune.UnbiasActOnePass = onePass
			s, err := be.UnbiasAct(y, b, c.relu, c.p)
			if err != nil {
				t.Fatalf("UnbiasAct(relu=%v, p=%g), one pass %v: %v", c.relu, c.p, onePass, err)
			}
			return tbackend.FromStorage(s, rows, cols).CPU().Data()
		}
		got, want := run(true), run(false)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("UnbiasAct(relu=%v, p=%g)[%d] = %g in one pass, %g copied", c.relu, c.p, i, got[i], want[i])
			}
		}
		for i, v := range y.CPU().Data() {
			if v != yh.Data()[i] {
				t.Fatalf("UnbiasAct(relu=%v, p=%g) changed y[%d]: %g, was %g", c.relu, c.p, i, v, yh.Data()[i])
			}
		}
	}
	_ = nn.GATv2OutOps(be)
}

// kernelClock is a driver whose launches, fills and device copies each
// wait for the stream and add their device time (events around the one
// call) to ms: a per-kernel profile. It runs on the device goroutine,
// as every driver call does.
type kernelClock struct {
	driver
	ms    map[string]float64
	calls map[string]int
}

func (k *kernelClock) timed(name string, run func() error) error {
	if err := k.driver.timeStart(); err != nil {
		return err
	}
	if err := run(); err != nil {
		return err
	}
	ms, err := k.driver.timeStop()
	k.ms[name] += ms
	k.calls[name]++
	return err
}

func (k *kernelClock) launch(kernel string, grid, block [3]int, shared int, args []uint64) error {
	return k.timed(kernel, func() error { return k.driver.launch(kernel, grid, block, shared, args) })
}

func (k *kernelClock) memsetD32(dst uintptr, v uint32, n int64) error {
	return k.timed("(fill)", func() error { return k.driver.memsetD32(dst, v, n) })
}

func (k *kernelClock) dtod(dst, src uintptr, n int64) error {
	return k.timed("(copy)", func() error { return k.driver.dtod(dst, src, n) })
}

// clockKernels runs fn with d's driver calls timed one by one and
// returns the device milliseconds and calls per kernel.
func clockKernels(t *testing.T, d *Device, fn func()) (map[string]float64, map[string]int) {
	k := &kernelClock{ms: map[string]float64{}, calls: map[string]int{}}
	if err := d.do(func(drv driver) error { k.driver = drv; d.drv = k; return nil }); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := d.do(func(driver) error { d.drv = k.driver; return nil }); err != nil {
			t.Fatal(err)
		}
	}()
	fn()
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
	return k.ms, k.calls
}

// epochProfile is one epoch variant's device profile: the median wall
// time of an epoch, the allocator's peak in one, and each kernel's device
// time per epoch.
type epochProfile struct {
	name   string
	wallMS float64
	peak   float64 // GiB
	ms     map[string]float64
	calls  map[string]int
}

// profileEpoch warms epoch up, times reps epochs (wall clock, the
// epoch's own wait for the loss included), measures the peak of one, and
// times each kernel over 3 more.
func profileEpoch(t *testing.T, d *Device, name string, reps int, epoch func()) epochProfile {
	epoch()
	epoch()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
	d.ResetPeak()
	walls := make([]float64, reps)
	for i := range walls {
		t0 := time.Now()
		epoch()
		walls[i] = float64(time.Since(t0).Microseconds()) / 1e3
	}
	s, err := d.MemStats()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(walls)
	p := epochProfile{name: name, wallMS: walls[reps/2], peak: float64(s.Peak) / (1 << 30)}
	const epochs = 3
	p.ms, p.calls = clockKernels(t, d, func() {
		for range epochs {
			epoch()
		}
	})
	for k := range p.ms {
		p.ms[k] /= epochs
		p.calls[k] /= epochs
	}
	return p
}

// TestNNGATv2EpochKernelTimes is a device profile, not a check (it fails
// only when an epoch fails): the arxiv-sized 3-layer GATv2 epoch
// (169,343 nodes, 14 in-edges each, widths 128-256-256-64, ReLU and
// dropout 0.5 between the layers, cross-entropy, Adam) written with
// gnnlib/nn and nn.ForwardReLUDropout, with this branch's switches on
// and off, beside gnnbench's hand-written epoch on the same graph: each
// variant's median wall time and peak, and each kernel's device time per
// epoch (each call timed alone, so launch gaps are not counted), side by
// side: what the nn epoch runs that the hand-written one does not, and
// where its time goes.
func TestNNGATv2EpochKernelTimes(t *testing.T) {
	d := openOrSkip(t)
	t.Logf("arxiv-sized GATv2 epoch on %s:%s", d.desc, gatv2EpochTable(nnGATv2Profiles(t, d, 169_343)))
}

// nnGATv2Profiles profiles the hand-written GATv2 epoch and the nn one
// (switches on, then each off) on an n-node graph on d.
func nnGATv2Profiles(t *testing.T, d *Device, n int) []epochProfile {
	defer gatv2Switches(nn.ActOutInAttention, nn.RebuildInActBackward, tune.UnbiasActOnePass)()
	defer func(auto bool) { AutoReplay = auto }(AutoReplay)
	AutoReplay = false // kernel by kernel, as gnnbench's api part times the epochs
	defer fastPaths(true)()
	hg := testGraph(t, n, 14*n, false)
	dims := []int{128, 256, 256, 64}
	gatv2 := func(in, out int) nn.GraphLayer { return nn.NewGATv2Conv(in, out, 1, true, 0) }
	var profs []epochProfile
	// Each variant starts on a device that holds none of the previous
	// one's tensors (collected first), only the nn variants' device copy
	// of the graph, so that the peaks compare.
	profile := func(name string, build func() func()) {
		profs = append(profs, profileEpoch(t, d, name, 10, build()))
		runtime.GC()
		time.Sleep(100 * time.Millisecond)
		if err := d.EmptyCache(); err != nil {
			t.Fatal(err)
		}
	}
	profile("hand-written", func() func() {
		seed := uint64(0)
		step := handGATv2Epoch(t, d, hg, dims)
		return func() { seed++; step(seed) }
	})
	defer func(on bool) { nn.CollectAfterBackward = on }(nn.CollectAfterBackward)
	for _, v := range gatv2Variants {
		restore := gatv2Switches(v.actOut, v.rebuild, v.onePass)
		nn.CollectAfterBackward = v.collect
		profile(v.name, func() func() { return nnEpoch(d, hg, dims, gatv2, func(f func()) { f() }) })
		restore()
	}
	return profs
}

// gatv2EpochTable lays profs out side by side, kernels by the nn epoch's
// device time.
func gatv2EpochTable(profs []epochProfile) string {
	names := map[string]bool{}
	for _, p := range profs {
		for k := range p.ms {
			names[k] = true
		}
	}
	keys := slices.Sorted(maps.Keys(names))
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(profs[1].ms[b], profs[1].ms[a]) })
	var b strings.Builder
	fmt.Fprintf(&b, "\n\t%-28s", "kernel (ms per epoch, calls)")
	for _, p := range profs {
		fmt.Fprintf(&b, " %22s", p.name)
	}
	for _, k := range keys {
		fmt.Fprintf(&b, "\n\t%-28s", k)
		for _, p := range profs {
			fmt.Fprintf(&b, " %15.3f (%3d)", p.ms[k], p.calls[k])
		}
	}
	fmt.Fprintf(&b, "\n\t%-28s", "device time, summed")
	for _, p := range profs {
		var sum float64
		for _, v := range p.ms {
			sum += v
		}
		fmt.Fprintf(&b, " %21.3f ", sum)
	}
	fmt.Fprintf(&b, "\n\t%-28s", "wall time per epoch, median")
	for _, p := range profs {
		fmt.Fprintf(&b, " %21.3f ", p.wallMS)
	}
	fmt.Fprintf(&b, "\n\t%-28s", "peak in use, GiB")
	for _, p := range profs {
		fmt.Fprintf(&b, " %21.3f ", p.peak)
	}
	return b.String()
}

// TestNNGATv2Profiles runs TestNNGATv2EpochKernelTimes' profiles on the
// recording driver (no GPU; the times are zero): every variant runs, and
// the calls the clock counts per kernel are the launches the recorder
// lists for the same epochs.
func TestNNGATv2Profiles(t *testing.T) {
	d, _ := openRecorder(t)
	profs := nnGATv2Profiles(t, d, 2000)
	t.Log(gatv2EpochTable(profs))
	dims := []int{128, 256, 256, 64}
	hand := handGATv2EpochLaunches(t, epochGraph(t, 2000), dims)
	want := []launchCount{hand}
	for _, v := range gatv2Variants {
		want = append(want, unbiasLaunches(t, v.actOut, v.rebuild, v.onePass))
	}
	for i, want := range want {
		got := launchCount(profs[i].calls)
		delete(got, "(copy)") // the recorder lists no copies
		if got.String() != want.String() {
			t.Errorf("%s: the clock counted %v, the recorder lists %v", profs[i].name, got, want)
		}
	}
}

// TestRebuildInActBackwardOnDevice checks on a device that a GATv2Conv
// with its ReLU and dropout in its own op (nn.ForwardReLUDropout) gives
// the same output and gradients with nn.RebuildInActBackward
// (act_backward_colsum_unbias) as with the two kernels it replaces: the
// output bit for bit, the gradients within float32 rounding (the column
// sums and the split weight-gradient products add atomically, in an
// order that varies from run to run); with attention dropout and a
// residual too.
func TestRebuildInActBackwardOnDevice(t *testing.T) {
	d := defaultOrSkip(t).be
	defer gatv2Switches(nn.ActOutInAttention, nn.RebuildInActBackward, tune.UnbiasActOnePass)()
	g := testGraph(t, 500, 4000, true)
	for _, c := range []struct {
		heads, ch int
		p         float32
		residual  bool
	}{{1, 64, 0, false}, {2, 32, 0.3, false}, {4, 16, 0, true}} {
		run := func(rebuild bool) [][]float32 {
			defer gatv2Switches(false, rebuild, true)()
			nn.Seed(13)
			conv := nn.NewGATv2Conv(24, c.ch, c.heads, true, c.p)
			drop := nn.NewDropout(0.4)
			nn.To(conv, d)
			x := tensor.Randn(3, 500, 24).To(d).SetRequiresGrad(true)
			w := tensor.Randn(4, 500, c.heads*c.ch).To(d)
			h := nn.ForwardReLUDropout(conv, g, x, drop)
			loss := h.Mul(w)
			if c.residual {
				loss = loss.Add(h.Mul(h))
			}
			loss.Sum().Backward()
			vals := [][]float32{h.CPU().Data()}
			for _, p := range append([]*tensor.Tensor{x}, conv.Params()...) {
				vals = append(vals, p.Grad().CPU().Data())
			}
			return vals
		}
		want, got := run(false), run(true)
		for j := range want[0] {
			if math.Float32bits(got[0][j]) != math.Float32bits(want[0][j]) {
				t.Fatalf("%+v: output[%d] = %g with nn.RebuildInActBackward, %g without", c, j, got[0][j], want[0][j])
			}
		}
		for i := 1; i < len(want); i++ {
			for j := range want[i] {
				if diff := math.Abs(float64(got[i][j] - want[i][j])); diff > 1e-4*(1+math.Abs(float64(want[i][j]))) {
					t.Errorf("%+v: gradient %d[%d] = %g with nn.RebuildInActBackward, %g without", c, i, j, got[i][j], want[i][j])
					break
				}
			}
		}
	}
}

// TestNNGATv2EpochPeak compares the allocator's peak in one epoch of the
// 3-layer GATv2 model (widths 128-256-256-64) on the recording driver,
// written with gnnlib/nn and by hand (handGATv2Epoch), on a 20,000-node
// graph of the arxiv-sized graph's degree. At the peak (the middle
// layer's attention backward pass) the nn epoch holds what the
// hand-written one does plus the attention output rebuilt beside the
// activation (nn's BUG note), less the loss gradient the hand-written
// epoch keeps for every epoch; the logits wait for the garbage collector.
// It fails if the nn epoch's peak passes the hand-written one's by more
// than those two N×F tensors: an intermediate kept too long. With
// nn.ActOutInAttention no rebuilt output is stored, and the slack is the
// logits alone (the peak fell by 1.07 N×256 tensors, 20.9 MiB, when it
// was written).
func TestNNGATv2EpochPeak(t *testing.T) {
	defer fastPaths(true)()
	defer func(auto bool) { AutoReplay = auto }(AutoReplay)
	AutoReplay = false
	const n = 20_000
	hg := testGraph(t, n, 14*n, false)
	dims := []int{128, 256, 256, 64}
	peak := func(d *Device, epoch func()) int64 { return settledPeak(t, d, epoch, 1) }
	d, _ := openRecorder(t)
	seed := uint64(0)
	step := handGATv2Epoch(t, d, hg, dims)
	hand := peak(d, func() { seed++; step(seed) })
	unit := int64(4 * n * 256)
	defer func(on bool) { nn.ActOutInAttention = on }(nn.ActOutInAttention)
	for _, on := range []bool{false, true} {
		nn.ActOutInAttention = on
		d2, _ := openRecorder(t)
		api := peak(d2, nnEpoch(d2, hg, dims, func(in, out int) nn.GraphLayer { return nn.NewGATv2Conv(in, out, 1, true, 0) }, func(f func()) { f() }))
		t.Logf("peak with nn.ActOutInAttention %v: gnnlib/nn %.1f MiB, hand-written %.1f MiB: %+.2f N×256 tensors", on, float64(api)/(1<<20), float64(hand)/(1<<20), float64(api-hand)/float64(unit))
		slack := unit + 4*n*64 + 4<<20
		what := "the rebuilt attention output and the logits"
		if on {
			slack, what = 4*n*64+4<<20, "the logits (no rebuilt output with nn.ActOutInAttention)"
		}
		if api > hand+slack {
			t.Errorf("nn.ActOutInAttention %v: the nn epoch's peak %d bytes passes the hand-written one's %d by %d, more than %s (%d)", on, api, hand, api-hand, what, slack)
		}
	}
}

// TestCollectAfterBackward runs epochs of the 3-layer nn GATv2 model
// (widths 128-256-256-64) back to back on the recording driver, each
// followed by a wait standing in for the device's time (the host waits
// for the loss there): until the allocator holds no more than it did
// before the first epoch, at most 500 ms. With nn.CollectAfterBackward
// every epoch peaks within half a 256-wide activation of the lowest
// peak: the previous epoch's activations, which only the collector gives
// back, are back before the next epoch allocates (its logits, a quarter
// of an activation, may still be held). Without it (logged) nothing
// starts a collection between the epochs, and an epoch's peak can hold
// the previous epoch's activations and logits too, 140-160 MiB more.
func TestCollectAfterBackward(t *testing.T) {
	defer fastPaths(true)()
	defer func(on, auto bool) { nn.CollectAfterBackward, AutoReplay = on, auto }(nn.CollectAfterBackward, AutoReplay)
	AutoReplay = false
	const n = 70_000 // a 256-wide activation of 68 MiB: past the switch's 64
	hg := testGraph(t, n, 14*n, false)
	dims := []int{128, 256, 256, 64}
	for _, on := range []bool{false, true} {
		nn.CollectAfterBackward = on
		d, _ := openRecorder(t)
		epoch := nnEpoch(d, hg, dims, func(in, out int) nn.GraphLayer { return nn.NewGATv2Conv(in, out, 1, true, 0) }, func(f func()) { f() })
		epoch()
		epoch()
		runtime.GC()
		time.Sleep(100 * time.Millisecond)
		stats := func() MemStats {
			s, err := d.MemStats()
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		base := stats().InUse
		var peaks []float64
		for range 6 {
			d.ResetPeak()
			epoch()
			peaks = append(peaks, float64(stats().Peak)/(1<<20))
			for start := time.Now(); stats().InUse > base && time.Since(start) < 500*time.Millisecond; {
				time.Sleep(5 * time.Millisecond)
			}
		}
		t.Logf("nn.CollectAfterBackward %v: peaks %.1f MiB", on, peaks)
		if !on {
			continue
		}
		// An epoch that starts with the previous epoch's activations
		// still held peaks at least one 256-wide activation above the
		// lowest; the previous logits (n×64, a quarter of that) may or
		// may not have been collected, whichever epoch it is.
		low, act := slices.Min(peaks), float64(4*n*256)/(1<<20)
		for i, p := range peaks {
			if p > low+act/2 {
				t.Errorf("epoch %d peaked at %.1f MiB, the lowest at %.1f: the previous epoch's activations (%.1f MiB each) were still held", i+1, p, low, act)
			}
		}
	}
}

// TestActOutInAttentionOnDevice runs devicetest.CheckActOutInAttention on
// the device: the GATv2 destination pass rebuilding the attention output
// from the activation as it reads it (gatv2_out_row) against the copy
// rebuilt by act_backward_colsum_unbias, in float32 and, under
// Autocast(BFloat16), against the bfloat16 copy of unbias_act_bf16 (which
// rounds the rebuilt output; the destination pass does not).
func TestActOutInAttentionOnDevice(t *testing.T) {
	checkBothFormats(t, testGraph(t, 500, 4000, true), devicetest.CheckActOutInAttention)
}

// TestNNGraphLeavesDevice runs nn GATv2 epochs (whose layers add
// self-loops to the graph) on the recording driver, drops the graph and
// the model, and checks that the device's bytes in use return to none:
// gnnlib/nn's caches of derived graphs held the last eight graphs
// strongly, so that a dropped graph's self-looped copy stayed on the
// device (12.8 MB here).
func TestNNGraphLeavesDevice(t *testing.T) {
	defer func(auto bool) { AutoReplay = auto }(AutoReplay)
	AutoReplay = false
	d, _ := openRecorder(t)
	func() {
		hg := testGraph(t, 20_000, 280_000, false)
		epoch := nnEpoch(d, hg, []int{128, 256, 256, 64}, func(in, out int) nn.GraphLayer { return nn.NewGATv2Conv(in, out, 1, true, 0) }, func(f func()) { f() })
		epoch()
		epoch()
	}()
	var in int64
	for range 20 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		d.ResetPeak() // takes in the blocks the finalizers queued
		s, err := d.MemStats()
		if err != nil {
			t.Fatal(err)
		}
		if in = s.InUse; in == 0 {
			return
		}
	}
	t.Errorf("%d bytes stay in use on the device after the graph and the model were dropped", in)
}

// settledPeak runs epoch twice on d (the device graph, Adam's moments and
// the pool's blocks are made in the first), then reps times, each after a
// garbage collection and a reset of the peak, and returns the lowest of
// those epochs' peaks.
func settledPeak(t *testing.T, d *Device, epoch func(), reps int) int64 {
	t.Helper()
	epoch()
	epoch()
	low := int64(-1)
	for range reps {
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
		d.ResetPeak()
		epoch()
		s, err := d.MemStats()
		if err != nil {
			t.Fatal(err)
		}
		if low < 0 || s.Peak < low {
			low = s.Peak
		}
	}
	return low
}

// TestRecomputeGATv2ProductPeak runs a three-layer nn GATv2 epoch (128,
// 256, 256, 64; nn.ForwardReLUDropout between the layers) on the
// recording driver with nn.RecomputeGATv2Product off and on, at a size
// where the first layer's product (N x 512 float32 values) passes
// nn.RecomputeGATv2ProductMin, and checks that the epoch's peak falls by
// at least that product, less two logits that the garbage collector may
// or may not have taken back by then: the peak lies in the second
// layer's backward pass, which the first layer's product no longer waits
// through.
func TestRecomputeGATv2ProductPeak(t *testing.T) {
	defer fastPaths(true)()
	defer func(auto, on bool) { AutoReplay, nn.RecomputeGATv2Product = auto, on }(AutoReplay, nn.RecomputeGATv2Product)
	AutoReplay = false
	const n = 40_000
	hg := testGraph(t, n, 14*n, false)
	dims := []int{128, 256, 256, 64}
	product := int64(4 * n * 2 * dims[1])
	if product < nn.RecomputeGATv2ProductMin {
		t.Fatalf("the first layer's product, %d bytes, is under nn.RecomputeGATv2ProductMin (%d): the test runs no recompute", product, nn.RecomputeGATv2ProductMin)
	}
	peaks := map[bool]int64{}
	for _, on := range []bool{false, true} {
		nn.RecomputeGATv2Product = on
		d, _ := openRecorder(t)
		epoch := nnEpoch(d, hg, dims, func(in, out int) nn.GraphLayer { return nn.NewGATv2Conv(in, out, 1, true, 0) }, func(f func()) { f() })
		peaks[on] = settledPeak(t, d, epoch, 3)
	}
	t.Logf("peak %.1f MiB keeping the first layer's product, %.1f MiB making it again (the product: %.1f MiB)",
		float64(peaks[false])/(1<<20), float64(peaks[true])/(1<<20), float64(product)/(1<<20))
	// Logits (this epoch's and the last's) may or may not have been
	// collected by then, whichever the setting: peaks move by 10 MiB
	// from epoch to epoch.
	slack := int64(2 * 4 * n * dims[3])
	if drop := peaks[false] - peaks[true]; drop < product-slack {
		t.Errorf("making the product again lowered the peak by %d bytes, want at least the product's %d less two logits' %d", drop, product, slack)
	}
}

// TestRecomputeGATv2ProductOnDevice runs devicetest.CheckRecomputeGATv2Product
// on the device: a model's first GATv2Conv freeing its product after the
// forward pass and handing the product made again to the attention's
// backward function (fusedAttention.again), against the kept product, in
// float32 and under Autocast(BFloat16) (where the bfloat16 kernels read
// the product made again through halfInputs).
func TestRecomputeGATv2ProductOnDevice(t *testing.T) {
	checkBothFormats(t, testGraph(t, 500, 4000, true), devicetest.CheckRecomputeGATv2Product)
}
