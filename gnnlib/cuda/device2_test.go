package cuda

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/prof"
)

func randInt8(r *rand.Rand, n int) []int8 {
	x := make([]int8, n)
	for i := range x {
		x[i] = int8(r.IntN(256) - 128)
	}
	return x
}

// TestInt8Agree checks the INT8 GEMM and SpMM against exact CPU sums, with
// widths that are not multiples of the kernels' tiles.
func TestInt8Agree(t *testing.T) {
	d := openOrSkip(t)
	r := rand.New(rand.NewPCG(4, 4))
	for _, c := range []struct{ m, n, k int }{{70, 130, 37}, {1, 1, 1}, {200, 64, 256}, {65, 3, 33}} {
		a, b := randInt8(r, c.m*c.k), randInt8(r, c.n*c.k)
		got, err := d.GEMMInt8(a, b, c.m, c.n, c.k)
		if err != nil {
			t.Fatalf("GEMMInt8(%dx%d, %dx%d) = %v", c.m, c.k, c.n, c.k, err)
		}
		for i := 0; i < c.m; i++ {
			for j := 0; j < c.n; j++ {
				var want int32
				for k := 0; k < c.k; k++ {
					want += int32(a[i*c.k+k]) * int32(b[j*c.k+k])
				}
				if got[i*c.n+j] != want {
					t.Fatalf("GEMMInt8 %v: C[%d,%d] = %d, want %d", c, i, j, got[i*c.n+j], want)
				}
			}
		}
	}
	g := testGraph(t, 300, 1500, true)
	dg, err := NewGraph(d, g)
	if err != nil {
		t.Fatal(err)
	}
	defer dg.Free()
	for _, f := range []int{7, 64} {
		x := randInt8(r, 300*f)
		dx, err := d.Int8FromHost(x, 300, f)
		if err != nil {
			t.Fatal(err)
		}
		y, err := d.EmptyInt32(300, f)
		if err != nil {
			t.Fatal(err)
		}
		if err := SpMMInt8(y, dg, dx); err != nil {
			t.Fatalf("SpMMInt8(F=%d) = %v", f, err)
		}
		got, err := y.Host()
		if err != nil {
			t.Fatal(err)
		}
		for v := 0; v < 300; v++ {
			for c := 0; c < f; c++ {
				var want int32
				for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
					want += int32(x[g.Indices[e]*f+c])
				}
				if got[v*f+c] != want {
					t.Fatalf("SpMMInt8(F=%d): y[%d,%d] = %d, want %d", f, v, c, got[v*f+c], want)
				}
			}
		}
		dx.Free()
		y.Free()
	}
}

// TestUnbiasAct checks that UnbiasAct rebuilds the pre-activation where
// BiasAct's output is not zero.
func TestUnbiasAct(t *testing.T) {
	d := openOrSkip(t)
	r := rand.New(rand.NewPCG(5, 5))
	x := randSlice(r, 40*12)
	b := randSlice(r, 12)
	dx, db := mustT(t, d, x, 40, 12), mustT(t, d, b, 1, 12)
	for _, c := range []struct {
		relu bool
		p    float32
	}{{true, 0.5}, {true, 0}, {false, 0}} {
		y, err := d.Empty(40, 12)
		if err != nil {
			t.Fatal(err)
		}
		if err := BiasAct(y, dx, db, c.relu, c.p, 7); err != nil {
			t.Fatal(err)
		}
		act := host(t, y)
		if err := UnbiasAct(y, db, c.relu, c.p); err != nil {
			t.Fatal(err)
		}
		got := host(t, y)
		for i, v := range act {
			if v == 0 && (c.relu || c.p > 0) {
				continue
			}
			if diff := got[i] - x[i]; diff > 1e-5 || diff < -1e-5 {
				t.Fatalf("UnbiasAct(relu=%v, p=%g)[%d] = %g, want %g", c.relu, c.p, i, got[i], x[i])
			}
		}
		y.Free()
	}
}

// TestDeviceTimingAndMemory checks the seams gnnlib/prof uses: event
// timing of queued kernels, and the allocator's in-use bytes seen by
// prof.DeviceMemory and TrackMemory.
func TestDeviceTimingAndMemory(t *testing.T) {
	d := defaultOrSkip(t)
	a, err := d.Zeros(1024, 1024)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Free()
	c, err := d.Empty(1024, 1024)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free()
	if err := d.StartTimer(); err != nil {
		t.Fatalf("StartTimer() = %v", err)
	}
	if err := MatMul(c, a, a, false, false); err != nil {
		t.Fatal(err)
	}
	el, err := d.StopTimer()
	if err != nil || el <= 0 || el > 10*time.Second {
		t.Fatalf("StopTimer() = %v, %v; want a positive duration", el, err)
	}
	st := prof.Time(func() { MatMul(c, a, a, false, false) }, prof.Options{Warmup: 1, Repeats: 3, Device: d.Backend()})
	if !st.DeviceClock || st.Min <= 0 {
		t.Errorf("prof.Time with Device = %v (DeviceClock %v), want device-event times", st, st.DeviceClock)
	}
	n, err := prof.DeviceMemory()
	if err != nil || n < 8<<20 {
		t.Errorf("prof.DeviceMemory() = %d, %v; want at least the 8 MiB allocated here", n, err)
	}
	tr := prof.TrackMemory(time.Millisecond)
	big, err := d.Empty(4096, 4096)
	if err != nil {
		t.Fatal(err)
	}
	tr.Mark("allocated")
	big.Free()
	d.MemStats() // collects the freed block
	p := tr.Stop()
	if !p.HasDevice || p.DevicePeak < 64<<20 {
		t.Errorf("TrackMemory: HasDevice %v, DevicePeak %d; want at least the 64 MiB allocated", p.HasDevice, p.DevicePeak)
	}
}
