package cuda

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// timingDriver is a driver whose launches and fills each wait for the
// stream and add their device time (events around the one launch) to
// times: a per-kernel profile of what a stretch of work launches. It
// runs on the device goroutine only, as every driver call does.
type timingDriver struct {
	driver
	times map[string]float64
	calls map[string]int
}

func (t *timingDriver) add(name string, run func() error) error {
	if err := t.driver.timeStart(); err != nil {
		return err
	}
	if err := run(); err != nil {
		return err
	}
	ms, err := t.driver.timeStop()
	if err != nil {
		return err
	}
	t.times[name] += ms
	t.calls[name]++
	return nil
}

func (t *timingDriver) launch(kernel string, grid, block [3]int, shared int, args []uint64) error {
	return t.add(kernel, func() error { return t.driver.launch(kernel, grid, block, shared, args) })
}

func (t *timingDriver) memsetD32(dst uintptr, v uint32, n int64) error {
	return t.add("(fill)", func() error { return t.driver.memsetD32(dst, v, n) })
}

func (t *timingDriver) dtod(dst, src uintptr, n int64) error {
	return t.add("(copy)", func() error { return t.driver.dtod(dst, src, n) })
}

// timeKernels runs fn with d's launches, fills and device copies timed one
// by one and returns the device milliseconds and calls per name.
func timeKernels(t *testing.T, d *Device, fn func()) (map[string]float64, map[string]int) {
	td := &timingDriver{times: map[string]float64{}, calls: map[string]int{}}
	if err := d.do(func(drv driver) error { td.driver = drv; d.drv = td; return nil }); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := d.do(func(driver) error { d.drv = td.driver; return nil }); err != nil {
			t.Fatal(err)
		}
	}()
	fn()
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
	return td.times, td.calls
}

// TestNNEpochKernelTimes is a device profile, not a check: it runs the
// arxiv-sized nn GCN and GATv2 epochs (nnEpoch: 169,343 nodes, 14
// in-edges each, widths 128-256-256-40) in float32 and under
// Autocast(BFloat16), with the nnbf16 switches (nn.
// FuseLayerActivationUnderAutocast, tune.BF16Loss) on, and logs the
// device time of each kernel (each launch timed alone, so launch gaps
// are not counted), per epoch: where the bfloat16 epoch's device time
// goes beside the float32 one's. It fails only when an epoch fails.
func TestNNEpochKernelTimes(t *testing.T) {
	d := openOrSkip(t)
	if !d.hasBF16() {
		t.Skipf("%s has no bfloat16 kernels", d.desc)
	}
	// Kernel by kernel: a replayed graph's launches would not pass
	// through the timing driver.
	defer func(a, g bool) { AutoReplay, GraphReplay = a, g }(AutoReplay, GraphReplay)
	AutoReplay, GraphReplay = false, false
	n := 169_343
	hg := testGraph(t, n, 14*n, false)
	dims := []int{128, 256, 256, 40}
	const epochs = 3
	for _, kind := range []string{"gcn", "gatv2"} {
		newConv := epochConv(kind)
		for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
			epoch := nnEpoch(d, hg, dims, newConv, func(f func()) { tensor.Autocast(dt, f) })
			epoch()
			epoch()
			times, calls := timeKernels(t, d, func() {
				for range epochs {
					epoch()
				}
			})
			total, table := kernelTable(times, calls, epochs)
			t.Logf("%s %v: %.3f ms of device time per epoch, each launch timed alone:%s", kind, dt, total, table)
			if err := d.EmptyCache(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestTimingDriver runs the bfloat16 nn GCN epoch of TestNNEpochKernelTimes
// under timeKernels on the recording driver: the calls it counts per
// kernel are the launches and fills the recorder saw, and the driver is
// the recorder again afterwards.
func TestTimingDriver(t *testing.T) {
	d, drv := openRecorderBF16(t)
	hg := epochGraph(t, 2000)
	epoch := nnEpoch(d, hg, []int{128, 256, 256, 40}, func(in, out int) nn.GraphLayer { return nn.NewGCNConv(in, out) }, func(f func()) { tensor.Autocast(tensor.BFloat16, f) })
	epoch()
	drv.trace = nil
	_, calls := timeKernels(t, d, epoch)
	want := countLaunches(drv.trace)
	delete(calls, "(copy)") // the recorder does not list copies
	got := launchCount(calls)
	if got.String() != want.String() {
		t.Errorf("timeKernels counted %v, the recorder saw %v", got, want)
	}
	if d.drv != driver(drv) {
		t.Errorf("after timeKernels the device's driver is %T, want the recorder", d.drv)
	}
}

// kernelTable lists timeKernels' times and calls per repetition (of
// reps), slowest kernel first, one indented line each, and returns their
// total per repetition.
func kernelTable(times map[string]float64, calls map[string]int, reps int) (float64, string) {
	names := make([]string, 0, len(times))
	var total float64
	for k, v := range times {
		names = append(names, k)
		total += v
	}
	sort.Slice(names, func(i, j int) bool { return times[names[i]] > times[names[j]] })
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "\n\t%-32s %3d calls %8.3f ms", k, calls[k]/reps, times[k]/float64(reps))
	}
	return total / float64(reps), b.String()
}
