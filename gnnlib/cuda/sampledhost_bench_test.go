package cuda

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// countDriver is a recordDriver that counts the driver calls a training
// step makes besides its launches: allocations (the caching allocator's
// misses), copies each way and syncs.
type countDriver struct {
	*recordDriver
	allocs, htods, dtohs, syncs int
}

func (c *countDriver) alloc(n int64) (uintptr, error) {
	c.allocs++
	return c.recordDriver.alloc(n)
}

func (c *countDriver) htod(dst uintptr, src unsafe.Pointer, n int64, async bool) error {
	c.htods++
	return c.recordDriver.htod(dst, src, n, async)
}

func (c *countDriver) dtoh(dst unsafe.Pointer, src uintptr, n int64) error {
	c.dtohs++
	return c.recordDriver.dtoh(dst, src, n)
}

func (c *countDriver) sync() error {
	c.syncs++
	return c.recordDriver.sync()
}

// handoffs counts the work items that reach a device goroutine, and
// which of them a caller waits for (Device.do) rather than posts
// (Device.post), told apart by the function the item is (do's closure or
// post's); with byCaller, do's items also by the function that called
// do, read from the goroutines' stacks (slow: not for a timed pass).
type handoffs struct {
	on, byCaller atomic.Bool
	items, waits atomic.Int64
	mu           sync.Mutex
	callers      map[string]int
}

// doFrame is how a goroutine stack names Device.do.
const doFrame = "gnnlib/cuda.(*Device).do("

// doItem is the name of do's closure, the item that its caller waits
// for; sendItem is send's, which runs a recorded segment (GraphReplay)
// and then the work of a do or a post.
const (
	doItem    = "github.com/gnnlab/gnnlab/gnnlib/cuda.(*Device).do.func1"
	sendItem  = "github.com/gnnlab/gnnlab/gnnlib/cuda.(*Device).send.func1"
	sendFrame = "gnnlib/cuda.(*Device).send("
)

// note classifies fn as the device goroutine takes it, with queued items
// behind it. A do's item is its closure, or send's wrapper of it when a
// recorded segment runs first: then it is the do's if a goroutine waits
// in do (past send, so its item is queued) and fn is the last item
// queued (a single-goroutine step has one call in flight).
func (h *handoffs) note(fn func(), queued int, buf []byte) {
	h.items.Add(1)
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	if name != doItem && name != sendItem {
		return
	}
	var stacks [][]byte
	if name == sendItem || h.byCaller.Load() {
		n := runtime.Stack(buf, true)
		for _, g := range bytes.Split(buf[:n], []byte("\n\n")) {
			if bytes.Contains(g, []byte(doFrame)) && !bytes.Contains(g, []byte(sendFrame)) {
				stacks = append(stacks, g)
			}
		}
		if name == sendItem && (len(stacks) == 0 || queued > 0) {
			return // a post's, or a do's whose own item is still queued
		}
	}
	h.waits.Add(1)
	if !h.byCaller.Load() {
		return
	}
	// The frames after do's two lines (function, file:line) are its
	// callers.
	for _, g := range stacks {
		i := bytes.Index(g, []byte(doFrame))
		var fns []string
		lines := bytes.Split(g[i:], []byte("\n"))
		for k := 2; k < len(lines) && len(fns) < 3; k += 2 {
			f := string(lines[k])
			if j := strings.LastIndexByte(f, '('); j > 0 {
				f = f[:j]
			}
			fns = append(fns, strings.TrimPrefix(f, "github.com/gnnlab/gnnlab/gnnlib/"))
		}
		caller := strings.Join(fns, " < ")
		h.mu.Lock()
		h.callers[caller]++
		h.mu.Unlock()
	}
}

// openCounting is openOn whose device goroutine is locked to its OS
// thread and polls before it parks, as Open's is (so that a handoff
// costs what it costs there), and tells h of each work item while h is
// on.
func openCounting(t testing.TB, drv driver, h *handoffs) *Device {
	d := &Device{work: make(chan func(), 256), done: make(chan struct{}), drv: drv, desc: "record (no GPU)", nsm: drv.sms()}
	d.be = &backend{Device: d}
	d.pool.init(drv)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		buf := make([]byte, 8<<20)
		for {
			fn, ok := d.next() // polling first, as Open's runWork does
			if !ok {
				break
			}
			if h.on.Load() {
				h.note(fn, len(d.work), buf)
			}
			fn()
		}
		close(d.done)
	}()
	t.Cleanup(func() { d.Close() })
	return d
}

// productsLike returns a graph of products' size (2,449,029 nodes) with
// every node 50 in-neighbours drawn uniformly (122M edges, 0.98 GB of
// indices), made once a process; ogbn-products has 50.5 a node on
// average. A batch sampled from it has the products batch's size; its
// degrees are uniform, which the step's host work does not see.
var productsLike = sync.OnceValue(func() *graph.Graph {
	g, err := uniformInGraph(2_449_029, 50, 1)
	if err != nil {
		panic(err)
	}
	return g
})

// uniformInGraph returns a graph of n nodes, each with deg in-neighbours
// drawn uniformly (the PCG stream seeded 26, stream).
func uniformInGraph(n, deg int, stream uint64) (*graph.Graph, error) {
	indptr := make([]int, n+1)
	idx := make([]int, n*deg)
	r := rand.New(rand.NewPCG(26, stream))
	for v := range n {
		indptr[v+1] = (v + 1) * deg
		for k := range deg {
			idx[v*deg+k] = r.IntN(n)
		}
	}
	return graph.FromCSR(n, indptr, idx, nil)
}

// sampledBatch is one products-sized batch as the loader hands it to the
// step with the Device option: blocks registered on the device (their
// transposes built there), the first block's feature rows gathered there
// and the seeds' labels preloaded.
type sampledBatch struct {
	gs []*graph.Graph
	x  *tensor.Tensor
	y  []int
}

func newSampledBatch(tb testing.TB, d *Device, g *graph.Graph, fin, classes int) sampledBatch {
	seeds := make([]int, 1024)
	for i := range seeds {
		seeds[i] = i * (g.NumNodes() / len(seeds))
	}
	blocks, err := g.SampleNeighbors(seeds, []int{15, 10, 5}, 7)
	if err != nil {
		tb.Fatal(err)
	}
	xall, err := d.Empty(g.NumNodes(), fin)
	if err == nil {
		err = xall.Fill(0.01) // on a GPU: finite features
	}
	if err != nil {
		tb.Fatal(err)
	}
	feats, err := d.UploadBlocks(blocks, tbackend.FromStorage(xall, g.NumNodes(), fin))
	if err != nil {
		tb.Fatal(err)
	}
	b := sampledBatch{x: tbackend.FromStorage(feats, len(blocks[0].SrcNodes), fin), y: make([]int, len(seeds))}
	for _, bl := range blocks {
		b.gs = append(b.gs, bl.Graph)
	}
	for i, s := range seeds {
		b.y[i] = s % classes
	}
	if err := d.be.PreloadLabels(b.y); err != nil {
		tb.Fatal(err)
	}
	return b
}

// sageStack returns SAGEConv layers (mean) of the widths dims on dev,
// and their parameters.
func sageStack(dev tensor.Backend, dims []int) ([]*nn.SAGEConv, []*tensor.Tensor) {
	var convs []*nn.SAGEConv
	var params []*tensor.Tensor
	for i := 0; i+1 < len(dims); i++ {
		c := nn.NewSAGEConv(dims[i], dims[i+1], "mean")
		nn.To(c, dev)
		convs = append(convs, c)
		params = append(params, c.Params()...)
	}
	return convs, params
}

// sampledStepFunc is gnnbench's sampled GraphSAGE step (sageStep): three
// SAGEConv layers (mean) from fin features through hidden units to
// classes, ReLU and dropout between them (nn.ForwardReLUDropout, as
// gnnbench: with nn.SAGEFused in the layer's own pass), cross-entropy on
// the seeds, an Adam step and the loss read back.
func sampledStepFunc(dev tensor.Backend, fin, hidden, classes int) func(b sampledBatch) float32 {
	convs, params := sageStack(dev, []int{fin, hidden, hidden, classes})
	drop := nn.NewDropout(0.5)
	opt := nn.NewAdam(params, 0.01, 0)
	return func(b sampledBatch) float32 {
		h := b.x
		for i, c := range convs {
			if i < len(convs)-1 {
				h = nn.ForwardReLUDropout(c, b.gs[i], h, drop)
			} else {
				h = c.Forward(b.gs[i], h)
			}
		}
		opt.ZeroGrad()
		loss := nn.CrossEntropy(h, b.y, nil)
		loss.Backward()
		opt.Step()
		return loss.Item()
	}
}

// BenchmarkSampledStepHost times the host side of gnnbench's sampled
// GraphSAGE step (3 layers, hidden 256, fan-outs 15, 10, 5, batch 1024)
// on one products-sized batch (productsLike: 100 features, 47 classes;
// host-sampled, so 828,815 sources and 1.03M edges against the device
// sampler's 653k and 830k) on the recording driver, which runs no
// kernel, with the device goroutine locked to its thread as Open's is:
// what the host spends launching, allocating and handing work to the
// device goroutine per step, the bound of a step whose kernels take
// less. AutoReplay is off (the recorder's launches cost nothing, so it
// would always record). Its variants, side by side: kernel by kernel
// with launches waited for (the default), posted (tune.AsyncLaunch),
// posted with fills and copies (tune.PostFillCopy), that with SAGEConv's
// terms freed (nn.SAGEFreeSums), and that with SAGEConv as one op
// (nn.SAGEFused) instead of the terms freed; then recorded and replayed
// (GraphReplay), without and with fills, copies and terms as before;
// then under Autocast(BFloat16) on an sm_90 device, kernel by kernel,
// waited and with those three switches, with tune.BF16Add too, and with
// tune.BF16Add and nn.SAGEFused (which keeps the composed ops under
// Autocast). After 10 warm-up steps,
// each reports over 10 counted steps: launches/step; handoffs/step (work
// items sent to the device goroutine) and sync/step, those of them whose
// caller waited (Device.do); the driver's allocations (the allocator's
// misses, which vary with when the collector runs), copies and syncs;
// for the replayed ones, segments and graph-node updates; then ms/step
// and GCs/step over b.N steps, and the ratio to the first variant. With
// -v it logs each step's kernels and the callers of Device.do.
func BenchmarkSampledStepHost(b *testing.B) {
	if testing.Short() {
		b.Skip("makes a products-sized graph (1 GB)")
	}
	g := productsLike()
	const fin, hidden, classes = 100, 256, 47
	var base float64
	for _, v := range []struct {
		name                             string
		async, fills, free, replay, bf16 bool
	}{
		{"waited", false, false, false, false, false},
		{"posted", true, false, false, false, false},
		{"posted+fills", true, true, false, false, false},
		{"posted+fills+free", true, true, true, false, false},
		{"posted+fills+fused", true, true, false, false, false},
		{"replayed", false, false, false, true, false},
		{"replayed+fills+free", false, true, true, true, false},
		{"bf16/waited", false, false, false, false, true},
		{"bf16/posted+fills+free", true, true, true, false, true},
		{"bf16/posted+fills+free+add", true, true, true, false, true},
		{"bf16/posted+fills+add+fused", true, true, false, false, true},
	} {
		name := v.name
		b.Run(name, func(b *testing.B) {
			defer func(a, f, r, g, s, ba, sf bool) {
				tune.AsyncLaunch, tune.PostFillCopy, AutoReplay, GraphReplay, nn.SAGEFreeSums, tune.BF16Add, nn.SAGEFused = a, f, r, g, s, ba, sf
			}(tune.AsyncLaunch, tune.PostFillCopy, AutoReplay, GraphReplay, nn.SAGEFreeSums, tune.BF16Add, nn.SAGEFused)
			tune.AsyncLaunch, tune.PostFillCopy, nn.SAGEFreeSums = v.async, v.fills, v.free
			tune.BF16Add = strings.Contains(name, "+add") // same-shape adds in bfloat16
			nn.SAGEFused = strings.HasSuffix(name, "+fused")
			AutoReplay, GraphReplay = false, v.replay
			drv := &countDriver{recordDriver: &recordDriver{}}
			h := &handoffs{callers: map[string]int{}}
			d := openCounting(b, drv, h)
			batch := newSampledBatch(b, d, g, fin, classes)
			step := sampledStepFunc(d.Backend(), fin, hidden, classes)
			if v.bf16 {
				// Autocast(BFloat16) on an sm_90 device: tensor-core products.
				d.desc = "record (sm_90, no GPU)"
				f32 := step
				step = func(b sampledBatch) (loss float32) {
					tensor.Autocast(tensor.BFloat16, func() { loss = f32(b) })
					return loss
				}
			}
			// Warm-up: the pool fills up to the step's needs.
			for range 10 {
				step(batch)
			}
			// The counting pass.
			const counted = 10
			var l0 int64
			var a0, u0, w0, s0 int
			d.do(func(driver) error {
				l0, a0, u0, w0, s0 = d.launches.Load(), drv.allocs, drv.htods, drv.dtohs, drv.syncs
				drv.trace, drv.launches = drv.trace[:0], drv.launches[:0]
				return nil
			})
			r0 := d.ReplayStats()
			h.on.Store(true)
			for range counted {
				step(batch)
			}
			h.on.Store(false)
			r1 := d.ReplayStats()
			var l1 int64
			var a1, u1, w1, s1 int
			d.do(func(driver) error {
				l1, a1, u1, w1, s1 = d.launches.Load(), drv.allocs, drv.htods, drv.dtohs, drv.syncs
				kernels := map[string]int{}
				for _, l := range drv.launches {
					kernels[l.kernel]++
				}
				var ks []string
				for k, c := range kernels {
					ks = append(ks, fmt.Sprintf("%s×%g", k, float64(c)/counted))
				}
				slices.Sort(ks)
				b.Logf("%s: kernels a step: %s", name, strings.Join(ks, " "))
				drv.trace, drv.launches = drv.trace[:0], drv.launches[:0]
				return nil
			})
			items, waits := float64(h.items.Load())/counted, float64(h.waits.Load())/counted
			// One more step for the callers of do.
			h.byCaller.Store(true)
			h.on.Store(true)
			step(batch)
			h.on.Store(false)
			h.mu.Lock()
			callers := make([]string, 0, len(h.callers))
			for c := range h.callers {
				callers = append(callers, c)
			}
			slices.SortFunc(callers, func(x, y string) int { return h.callers[y] - h.callers[x] })
			var lines []string
			for _, c := range callers {
				lines = append(lines, fmt.Sprintf("%4d %s", h.callers[c], c))
			}
			h.mu.Unlock()
			b.Logf("%s: Device.do calls a step by caller:\n%s", name, strings.Join(lines, "\n"))
			// The timed pass.
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			b.ResetTimer()
			t0 := time.Now()
			for range b.N {
				step(batch)
				if b.N > 1 {
					d.do(func(driver) error {
						drv.trace, drv.launches = drv.trace[:0], drv.launches[:0]
						return nil
					})
				}
			}
			ms := float64(time.Since(t0).Microseconds()) / 1e3 / float64(b.N)
			b.StopTimer()
			runtime.ReadMemStats(&m1)
			b.ReportMetric(ms, "ms/step")
			b.ReportMetric(float64(l1-l0)/counted, "launches/step")
			b.ReportMetric(items, "handoffs/step")
			b.ReportMetric(waits, "sync/step")
			b.ReportMetric(float64(a1-a0)/counted, "allocs/step")
			b.ReportMetric(float64(u1-u0+w1-w0)/counted, "copies/step")
			b.ReportMetric(float64(s1-s0)/counted, "syncs/step")
			if v.replay {
				b.ReportMetric(float64(r1.Segments-r0.Segments)/counted, "segments/step")
				b.ReportMetric(float64(r1.Updates-r0.Updates)/counted, "node-updates/step")
			}
			b.ReportMetric(float64(m1.NumGC-m0.NumGC)/float64(b.N), "GCs/step")
			if name == "waited" {
				base = ms
			} else if base > 0 {
				b.ReportMetric(ms/base, "x-waited")
			}
		})
	}
}
