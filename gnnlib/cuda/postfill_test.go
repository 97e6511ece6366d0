package cuda

import (
	"errors"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// fillDriver is a recordDriver that puts device-to-device copies in the
// trace too (as a node of kernel "dtod") and can fail its memsets.
type fillDriver struct {
	*recordDriver
	failFill error
}

func (f *fillDriver) dtod(dst, src uintptr, n int64) error {
	f.trace = append(f.trace, graphNode{kernel: "dtod", dst: dst, n: n})
	return nil
}

func (f *fillDriver) memsetD32(dst uintptr, v uint32, n int64) error {
	if f.failFill != nil {
		return f.failFill
	}
	return f.recordDriver.memsetD32(dst, v, n)
}

// TestPostFillCopy: with tune.PostFillCopy, Tensor.Fill and the backend's
// Copy reach the device goroutine as posted work (no caller waits for
// them; off, the copy waits, and a fill waits unless tune.AsyncLaunch
// posts it with the launches), in the order they were asked for among
// the launches around them, and a posted fill's error comes back from
// the next call that waits.
func TestPostFillCopy(t *testing.T) {
	defer func(a, f, r bool) { tune.AsyncLaunch, tune.PostFillCopy, AutoReplay = a, f, r }(tune.AsyncLaunch, tune.PostFillCopy, AutoReplay)
	AutoReplay = false
	for _, tc := range []struct {
		async, on bool
		waits     int64 // of the 5 items below and Copy's allocation
	}{
		{false, false, 5}, // every item, and the allocation
		{false, true, 2},  // the launch and the allocation
		{true, false, 2},  // the copy and the allocation (fills post with launches)
		{true, true, 1},   // the allocation
	} {
		on := tc.on
		tune.AsyncLaunch, tune.PostFillCopy = tc.async, on
		drv := &fillDriver{recordDriver: &recordDriver{}}
		h := &handoffs{callers: map[string]int{}}
		d := openCounting(t, drv, h)
		a, err := d.Empty(3, 4)
		if err != nil {
			t.Fatal(err)
		}
		h.on.Store(true)
		if err := a.Fill(2); err != nil {
			t.Fatal(err)
		}
		if err := d.launch("scale_op", 1, 32, a, a, float32(3), int64(12)); err != nil {
			t.Fatal(err)
		}
		c, err := d.be.Copy(tbackend.FromStorage(a, 3, 4))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.(*Tensor).Fill(0); err != nil {
			t.Fatal(err)
		}
		h.on.Store(false)
		if err := d.Synchronize(); err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, n := range drv.trace {
			k := n.kernel
			if k == "" {
				k = "fill"
			}
			kinds = append(kinds, k)
		}
		if want := []string{"fill", "scale_op", "dtod", "fill"}; !slices.Equal(kinds, want) {
			t.Errorf("AsyncLaunch %t, PostFillCopy %t: the device ran %v, want %v", tc.async, on, kinds, want)
		}
		// Copy's allocation comes from the driver (an empty pool): a wait.
		if waits := h.waits.Load(); waits != tc.waits {
			t.Errorf("AsyncLaunch %t, PostFillCopy %t: %d of %d work items were waited for, want %d", tc.async, on, waits, h.items.Load(), tc.waits)
		}
		if !on {
			continue
		}
		boom := errors.New("memset refused")
		d.do(func(driver) error { drv.failFill = boom; return nil })
		if err := a.Fill(1); err != nil {
			t.Errorf("a posted Fill returned %v; its error belongs to the next wait", err)
		}
		if err := d.Synchronize(); !errors.Is(err, boom) {
			t.Errorf("Synchronize after a failed posted Fill = %v, want %v", err, boom)
		}
	}
}
