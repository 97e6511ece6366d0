package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestSliceCache checks the label cache's bookkeeping without a device:
// one value per pair of slices while their contents stay, a new one (and
// the old released) when they change, nil rows apart from empty rows,
// the oldest evicted past sliceCacheSize, and an entry dropped once its
// slices are collected.
func TestSliceCache(t *testing.T) {
	released := map[int]bool{}
	var mu = make(chan struct{}, 1)
	mu <- struct{}{}
	c := &sliceCache[int]{release: func(v int) {
		<-mu
		released[v] = true
		mu <- struct{}{}
	}}
	next := 0
	get := func(a, b []int) int {
		var got int
		err := c.with(a, b, func() (int, error) {
			next++
			return next, nil
		}, func(v int) error {
			got = v
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	labels := []int{0, 1, 2, 1}
	rows := []int{0, 2}
	v1 := get(labels, rows)
	for range 5 {
		if v := get(labels, rows); v != v1 {
			t.Fatalf("with(same slices) = %d, want the cached %d", v, v1)
		}
	}
	if v := get(labels, nil); v == v1 {
		t.Errorf("with(labels, nil) = %d, the value for rows %v", v, rows)
	}
	if v1b, v2 := get(labels, []int{}), get(labels, nil); v1b == v2 {
		t.Errorf("empty rows and nil rows share value %d", v2)
	}
	labels[3] = 0 // written in place: the cached copy is stale
	v2 := get(labels, rows)
	if v2 == v1 {
		t.Fatalf("with() after a label changed = %d, the stale value", v2)
	}
	<-mu
	if !released[v1] {
		t.Errorf("value %d not released after its labels changed", v1)
	}
	mu <- struct{}{}
	rows[1] = 3
	if v := get(labels, rows); v == v2 {
		t.Errorf("with() after a row changed = %d, the stale value", v)
	}
	if c.made != 5 {
		t.Errorf("made %d values, want 5", c.made)
	}

	// Fresh slices every call (mini-batches): at most sliceCacheSize live.
	for i := range 3 * sliceCacheSize {
		get([]int{i, i}, []int{1})
	}
	if n := c.len(); n > sliceCacheSize {
		t.Errorf("%d entries after %d fresh pairs, want at most %d", n, 3*sliceCacheSize, sliceCacheSize)
	}

	// Slices dropped by the caller take their entry with them.
	c2 := &sliceCache[int]{release: func(int) {}}
	func() {
		a, b := make([]int, 1000), make([]int, 10)
		c2.with(a, b, func() (int, error) { return 1, nil }, func(int) error { return nil })
	}()
	for i := 0; i < 50 && c2.len() > 0; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := c2.len(); n != 0 {
		t.Errorf("%d entries after their slices were collected, want 0", n)
	}
}

// TestCrossEntropyUploadsOnce checks that the device's CrossEntropy
// uploads a label and row slice once across epochs, again after the
// labels were changed in place, and that its loss and gradient match the
// CPU's each time.
func TestCrossEntropyUploadsOnce(t *testing.T) {
	d := openOrSkip(t)
	r := rand.New(rand.NewPCG(26, 1))
	const n, classes = 500, 7
	labels := make([]int, n)
	for i := range labels {
		labels[i] = r.IntN(classes)
	}
	rows := []int{3, 10, 42, 99, 250, 499}
	x := tensor.Randn(5, n, classes)
	xd := x.To(d.Backend())
	check := func(what string, rows []int) {
		t.Helper()
		xc := x.Clone().SetRequiresGrad(true)
		want := tensor.CrossEntropy(xc, labels, rows)
		want.Backward()
		xg := xd.Clone().SetRequiresGrad(true)
		got := tensor.CrossEntropy(xg, labels, rows)
		got.Backward()
		if g, w := got.Item(), want.Item(); math.Abs(float64(g-w)) > 1e-5*math.Max(1, math.Abs(float64(w))) {
			t.Errorf("%s: device loss %v, CPU %v", what, g, w)
		}
		gd, gc := xg.Grad().CPU().Data(), xc.Grad().Data()
		for i := range gc {
			if math.Abs(float64(gd[i]-gc[i])) > 1e-5 {
				t.Fatalf("%s: gradient[%d] = %v on the device, %v on the CPU", what, i, gd[i], gc[i])
			}
		}
	}
	// An epoch with the same labels must upload one copy fewer than an
	// epoch after they changed: whatever else an epoch uploads (nothing,
	// as written), the labels are not among it.
	same := map[string]int64{}
	for _, rs := range [][]int{nil, rows} {
		check("first epoch", rs)
		before := d.uploads.Load()
		for range 5 {
			check("later epoch", rs)
		}
		same[fmt.Sprint(rs)] = d.uploads.Load() - before
	}
	labels[rows[0]] = (labels[rows[0]] + 1) % classes
	before := d.uploads.Load()
	check("after a label changed", rows)
	changed := d.uploads.Load() - before
	t.Logf("uploads: %v in 5 epochs with the same labels (by row set), %d in the epoch after a label changed", same, changed)
	for rs, n := range same {
		if n != 5*(changed-1) {
			t.Errorf("rows %s: %d uploads in 5 epochs with the same labels, want 5×(%d−1) (one fewer per epoch than after a change)", rs, n, changed)
		}
	}
	if d.labels.made != 3 {
		t.Errorf("%d label sets made, want 3 (all rows, the row set, the row set after a change)", d.labels.made)
	}
	if got := d.labels.len(); got != 2 {
		t.Errorf("%d label sets cached, want 2 (all rows, and the row set)", got)
	}
}
