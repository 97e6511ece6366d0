package cuda

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// openLocked is openRecorder with the device goroutine on a locked OS
// thread, as Open's serve runs it.
func openLocked(t testing.TB) (*Device, *recordDriver) {
	drv := &recordDriver{}
	d := &Device{work: make(chan func(), 256), done: make(chan struct{}), drv: drv, desc: drv.name(), nsm: drv.sms()}
	d.be = &backend{Device: d}
	d.pool.init(drv)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		d.runWork()
		close(d.done)
	}()
	t.Cleanup(func() { d.Close() })
	return d, drv
}

// TestDeviceSpinOrder checks that work reaches the device goroutine in
// the order it was queued, posted or waited for, with the goroutines
// polling (tune.DeviceSpin) or parking, also with one P (where neither
// polls), and that Fill, posted under tune.AsyncLaunch, is among it.
func TestDeviceSpinOrder(t *testing.T) {
	defer func(s time.Duration, a bool) { tune.DeviceSpin, tune.AsyncLaunch = s, a }(tune.DeviceSpin, tune.AsyncLaunch)
	for _, c := range []struct {
		spin  time.Duration
		procs int
	}{{0, 0}, {100 * time.Microsecond, 0}, {100 * time.Microsecond, 1}} {
		t.Run(fmt.Sprintf("spin=%v,procs=%d", c.spin, c.procs), func(t *testing.T) {
			if c.procs > 0 {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.procs))
			}
			tune.DeviceSpin, tune.AsyncLaunch = c.spin, true
			d, drv := openLocked(t)
			x, err := d.Empty(4, 4)
			if err != nil {
				t.Fatal(err)
			}
			const n = 500
			for i := range n {
				if err := x.Fill(float32(i)); err != nil { // posted
					t.Fatal(err)
				}
				if i%7 == 0 {
					if err := d.do(func(driver) error { return nil }); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := d.Synchronize(); err != nil {
				t.Fatal(err)
			}
			var fills []uint32
			for _, r := range drv.trace {
				if r.kernel == "" && r.dst == x.ptr {
					fills = append(fills, r.v)
				}
			}
			if len(fills) != n {
				t.Fatalf("%d fills reached the driver, want %d", len(fills), n)
			}
			for i, v := range fills {
				if f := float32(i); v != math.Float32bits(f) {
					t.Fatalf("fill %d reached the driver as %#x, want %v's bits: out of order", i, v, f)
				}
			}
		})
	}
}

// BenchmarkDeviceRoundTrip times a call that waits for the device
// goroutine (a locked OS thread, as Open's) after a little host work,
// with the goroutines parking (tune.DeviceSpin 0) and polling, side by
// side, and prints the ratio.
func BenchmarkDeviceRoundTrip(b *testing.B) {
	defer func(s time.Duration) { tune.DeviceSpin = s }(tune.DeviceSpin)
	var park float64
	for _, spin := range []time.Duration{0, 100 * time.Microsecond} {
		b.Run(fmt.Sprintf("spin=%v", spin), func(b *testing.B) {
			tune.DeviceSpin = spin
			d, _ := openLocked(b)
			t0 := time.Now()
			for range b.N {
				if err := d.do(func(driver) error { return nil }); err != nil {
					b.Fatal(err)
				}
				x := 0
				for i := range 2000 { // a few µs of host work between calls
					x += i
				}
				sink = x
			}
			us := float64(time.Since(t0).Nanoseconds()) / 1e3 / float64(b.N)
			b.ReportMetric(us, "µs/call")
			if spin == 0 {
				park = us
			} else if park > 0 {
				b.ReportMetric(park/us, "x-faster")
			}
		})
	}
}

var sink int
