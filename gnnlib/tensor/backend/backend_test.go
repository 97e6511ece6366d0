package backend_test

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/graph/kernels"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// TestRegister opens a registered kind through tensor.Device, the one
// registry, and checks the errors of the others.
func TestRegister(t *testing.T) {
	fake := &devicetest.Fake{}
	errDown := errors.New("regtest-down: no device (plug one in)")
	backend.Register("regtest", backend.Driver{Open: func() (tensor.Backend, error) { return fake, nil }})
	backend.Register("regtest-down", backend.Driver{Open: func() (tensor.Backend, error) { return nil, errDown }})
	dev, err := tensor.Device("regtest")
	if err != nil || dev != tensor.Backend(fake) {
		t.Fatalf(`Device("regtest") = %v, %v; want the registered Fake`, dev, err)
	}
	if _, ok := backend.Graph(dev); !ok {
		t.Error("the Fake has no GraphOps")
	}
	if dev, err := tensor.Device("regtest-down"); !errors.Is(err, errDown) || dev != nil {
		t.Errorf(`Device("regtest-down") = %v, %v; want nil and the driver's error`, dev, err)
	}
	_, err = tensor.Device("regtest-missing")
	if !errors.Is(err, tensor.ErrNoBackend) || !strings.Contains(err.Error(), "regtest") {
		t.Errorf(`Device("regtest-missing") = %v, want ErrNoBackend listing the registered kinds`, err)
	}
	x := tensor.Randn(1, 3, 4).To(dev)
	if got := backend.FromStorage(x.Storage(), 4, 3); got.Device() != dev || !slices.Equal(got.Shape(), []int{4, 3}) {
		t.Errorf("FromStorage gave a tensor on %v of shape %v, want the Fake and [4 3]", got.Device(), got.Shape())
	}
}

// TestDeviceMemory checks that tensor.DeviceMemory sums the counters of
// the kinds with an open device and skips the others, and that a driver
// registered without a counter leaves the earlier one in place.
func TestDeviceMemory(t *testing.T) {
	open := false
	backend.Register("memtest-a", backend.Driver{InUse: func() (uint64, error) {
		if !open {
			return 0, errors.New("none open")
		}
		return 100, nil
	}})
	backend.Register("memtest-b", backend.Driver{InUse: func() (uint64, error) { return 0, errors.New("none open") }})
	defer backend.Register("memtest-a", backend.Driver{InUse: func() (uint64, error) { return 0, errors.New("none open") }})
	if n, ok := tensor.DeviceMemory(); ok {
		t.Errorf("DeviceMemory() = %d, true with no device open, want false", n)
	}
	open = true
	backend.Register("memtest-a", backend.Driver{Open: func() (tensor.Backend, error) { return nil, errors.New("no device") }})
	if n, ok := tensor.DeviceMemory(); !ok || n != 100 {
		t.Errorf("DeviceMemory() = %d, %v; want 100, true", n, ok)
	}
}

// TestGraphCache checks that a value is made once per graph and key and
// released once the graph is collected.
func TestGraphCache(t *testing.T) {
	released := make(chan int, 4)
	c := &backend.GraphCache[string, int]{Release: func(v int) { released <- v }}
	made := 0
	mk := func() (int, error) { made++; return made, nil }
	g, err := graph.ErdosRenyiM(50, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	a1, _ := c.Get(g, "a", mk)
	a2, _ := c.Get(g, "a", mk)
	b, _ := c.Get(g, "b", mk)
	if a1 != 1 || a2 != 1 || b != 2 || c.Len() != 2 {
		t.Fatalf("Get: a %d then %d, b %d, %d cached; want 1, 1, 2 and 2", a1, a2, b, c.Len())
	}
	if _, err := c.Get(g, "c", func() (int, error) { return 0, errors.New("upload failed") }); err == nil || c.Len() != 2 {
		t.Errorf("a failing make gave err %v and %d cached, want its error and 2", err, c.Len())
	}
	runtime.KeepAlive(g)
	g = nil
	var got []int
	deadline := time.Now().Add(5 * time.Second)
	for len(got) < 2 && time.Now().Before(deadline) {
		runtime.GC()
		select {
		case v := <-released:
			got = append(got, v)
		case <-time.After(10 * time.Millisecond):
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, []int{1, 2}) || c.Len() != 0 {
		t.Errorf("after the graph was collected: released %v, %d cached; want [1 2] and 0", got, c.Len())
	}
}

// TestOpHook checks the plumbing backends call: OpStart, NewGraphOpSince
// and SetOpHook.
func TestOpHook(t *testing.T) {
	if !backend.OpStart().IsZero() {
		t.Error("OpStart() is not zero without a hook")
	}
	var events []tensor.OpEvent
	restore := backend.SetOpHook(func(e tensor.OpEvent) { events = append(events, e) })
	start := backend.OpStart()
	x := tensor.Randn(1, 2, 2).SetRequiresGrad(true)
	out := backend.NewGraphOpSince(start, "TestGraphOp", 7, x.Clone(), []*tensor.Tensor{x}, func(g *tensor.Tensor) []*tensor.Tensor {
		return []*tensor.Tensor{g}
	})
	out.Sum().Backward()
	restore()
	var fwd, bwd bool
	for _, e := range events {
		if e.Name == "TestGraphOp" && e.Edges == 7 && !e.Start.IsZero() {
			fwd = fwd || !e.Backward
			bwd = bwd || e.Backward
		}
	}
	if !fwd || !bwd {
		t.Errorf("the hook saw %v, want TestGraphOp forward and backward with 7 edges and a start time", events)
	}
	if x.Grad() == nil {
		t.Error("the recorded op's backward did not reach its input")
	}
}

// TestOpCodes checks that every code prints as a name of its own.
func TestOpCodes(t *testing.T) {
	seen := map[string]bool{}
	for op := backend.MapReLU; op <= backend.MapPow; op++ {
		s := op.String()
		if seen[s] || strings.Contains(s, "?") {
			t.Errorf("MapOp %d prints as %q (seen before: %v)", op, s, seen[s])
		}
		seen[s] = true
	}
	if got := backend.MapOp(200).String(); got != "MapOp(?)" {
		t.Errorf("MapOp(200).String() = %q, want MapOp(?)", got)
	}
	if backend.BinaryDiv.String() != "div" || backend.LossBCELogits.String() != "bce_logits" || backend.PoolAvg.String() != "avg" {
		t.Error("BinaryDiv, LossBCELogits, PoolAvg do not print as div, bce_logits, avg")
	}
}

// TestCancelCheck checks that an installed check stops a graph kernel
// with a *Canceled panic wrapping its error, on the calling goroutine.
func TestCancelCheck(t *testing.T) {
	g, err := graph.ErdosRenyiM(20_000, 100_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	const f = 16
	x := make([]float32, g.NumNodes()*f)
	dst := make([]float32, g.NumNodes()*f)
	errStop := errors.New("interrupted")
	prev := backend.SetCancelCheck(func() error { return errStop })
	defer func() { backend.SetCancelCheck(prev) }()
	func() {
		defer func() {
			var c *backend.Canceled
			err, _ := recover().(error)
			if !errors.As(err, &c) || !errors.Is(err, errStop) {
				t.Errorf("SpMM under a failing cancel check panicked with %v, want a *backend.Canceled wrapping %v", err, errStop)
			}
		}()
		kernels.SpMM(g, dst, x, f, nil)
	}()
	backend.SetCancelCheck(nil)
	kernels.SpMM(g, dst, x, f, nil) // runs to the end again
}
