package cuda

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// The multi-tensor optimiser steps (tune.MultiTensorOptim: adam_multi and
// sgd_multi, kernels/optim.cu) against the per-parameter kernels and the
// CPU optimisers: on the CPU through memDriver, which runs the optimiser
// kernels written out in Go from the launch's argument slots, and on a
// GPU through the kernels themselves.

// memDriver is the recording driver with its memory in host memory
// (copies and fills move bytes) and the optimiser kernels emulated in Go
// from their argument slots, read with the layout of kernels/optim.cu
// (optimSlots), so that a step's launches are checked value for value.
// Other kernels fail.
type memDriver struct {
	recordDriver
	mem   map[uintptr][]byte
	bases []uintptr // ascending: recordDriver's addresses grow
}

func newMemDriver() *memDriver { return &memDriver{mem: map[uintptr][]byte{}} }

func (m *memDriver) alloc(n int64) (uintptr, error) {
	p, err := m.recordDriver.alloc(n)
	if err != nil {
		return 0, err
	}
	m.mem[p] = make([]byte, n)
	m.bases = append(m.bases, p)
	return p, nil
}

// bytes returns the n bytes of device memory at p.
func (m *memDriver) bytes(p uintptr, n int64) []byte {
	i, found := slices.BinarySearch(m.bases, p)
	if !found {
		i--
	}
	if i < 0 {
		panic(fmt.Sprintf("memDriver: address %#x below every allocation", p))
	}
	b := m.mem[m.bases[i]]
	off := int64(p - m.bases[i])
	if off+n > int64(len(b)) {
		panic(fmt.Sprintf("memDriver: %d bytes at %#x run past the allocation at %#x of %d", n, p, m.bases[i], len(b)))
	}
	return b[off : off+n]
}

// floats returns the n float32 values at p, nil for a null pointer.
func (m *memDriver) floats(p uint64, n int64) []float32 {
	if p == 0 || n == 0 {
		return nil
	}
	b := m.bytes(uintptr(p), 4*n)
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
}

func (m *memDriver) htod(dst uintptr, src unsafe.Pointer, n int64, _ bool) error {
	copy(m.bytes(dst, n), unsafe.Slice((*byte)(src), n))
	return nil
}

func (m *memDriver) dtoh(dst unsafe.Pointer, src uintptr, n int64) error {
	copy(unsafe.Slice((*byte)(dst), n), m.bytes(src, n))
	return nil
}

func (m *memDriver) dtod(dst, src uintptr, n int64) error {
	copy(m.bytes(dst, n), m.bytes(src, n))
	return nil
}

func (m *memDriver) memsetD32(dst uintptr, v uint32, n int64) error {
	m.recordDriver.memsetD32(dst, v, n)
	b := m.bytes(dst, 4*n)
	for i := int64(0); i < n; i++ {
		*(*uint32)(unsafe.Pointer(&b[4*i])) = v
	}
	return nil
}

func (m *memDriver) graphLaunch(g graphExec) error {
	return runNodes(m, g.(*recordGraph).nodes)
}

// optimSlots gives, for each multi-tensor kernel, the scalar parameters
// before its tensor list (the count first) and the lists in the struct
// after the sizes: kernels/optim.cu's AdamList and SGDList.
var optimSlots = map[string]struct{ scalars, lists int }{"adam_multi": {9, 4}, "sgd_multi": {5, 3}}

func slotF(s uint64) float32 { return math.Float32frombits(uint32(s)) }

func (m *memDriver) launch(kernel string, grid, block [3]int, shared int, args []uint64) error {
	if err := m.recordDriver.launch(kernel, grid, block, shared, args); err != nil {
		return err
	}
	threads := int64(grid[0] * block[0])
	// each runs f over [0, n) as a grid-stride loop does, thread by thread.
	each := func(n int64, f func(i int64)) {
		for tid := int64(0); tid < min(threads, n); tid++ {
			for i := tid; i < n; i += threads {
				f(i)
			}
		}
	}
	switch kernel {
	case "adam_wd":
		n := int64(args[4])
		p, g, mm, v := m.floats(args[0], n), m.floats(args[1], n), m.floats(args[2], n), m.floats(args[3], n)
		each(n, func(i int64) {
			emAdam1(p, g, mm, v, i, slotF(args[5]), slotF(args[6]), slotF(args[7]), slotF(args[8]), slotF(args[9]), slotF(args[10]), slotF(args[11]), args[12] != 0)
		})
	case "sgd_step":
		n := int64(args[3])
		p, g, buf := m.floats(args[0], n), m.floats(args[1], n), m.floats(args[2], n)
		each(n, func(i int64) { emSGD1(p, g, buf, i, slotF(args[4]), slotF(args[5]), slotF(args[6]), args[7] != 0) })
	case "adam_multi", "sgd_multi":
		lay := optimSlots[kernel]
		if want := lay.scalars + optimMulti*(1+lay.lists); len(args) != want {
			return fmt.Errorf("memDriver: %s with %d argument slots, want %d", kernel, len(args), want)
		}
		count := int(int32(uint32(args[0])))
		if count < 1 || count > optimMulti {
			return fmt.Errorf("memDriver: %s over %d tensors", kernel, count)
		}
		list := func(l, t int) uint64 { return args[lay.scalars+optimMulti*(1+l)+t] }
		for t := range count {
			n := int64(args[lay.scalars+t])
			if kernel == "adam_multi" {
				p, g, mm, v := m.floats(list(0, t), n), m.floats(list(1, t), n), m.floats(list(2, t), n), m.floats(list(3, t), n)
				each(n, func(i int64) {
					emAdam1(p, g, mm, v, i, slotF(args[1]), slotF(args[2]), slotF(args[3]), slotF(args[4]), slotF(args[5]), slotF(args[6]), slotF(args[7]), args[8] != 0)
				})
			} else {
				p, g, buf := m.floats(list(0, t), n), m.floats(list(1, t), n), m.floats(list(2, t), n)
				each(n, func(i int64) { emSGD1(p, g, buf, i, slotF(args[1]), slotF(args[2]), slotF(args[3]), args[4] != 0) })
			}
		}
	default:
		return fmt.Errorf("memDriver: no emulation of %s", kernel)
	}
	return nil
}

// emAdam1 is adam_wd1 (kernels/optim.cu) in Go.
func emAdam1(p, g, m, v []float32, i int64, step, b1, b2, eps, sc2, wd, shrink float32, decoupled bool) {
	pi, gi := p[i], g[i]
	if decoupled {
		pi *= shrink
	} else {
		gi += wd * pi
	}
	mi := b1*m[i] + (1-b1)*gi
	vi := b2*v[i] + (1-b2)*gi*gi
	m[i], v[i] = mi, vi
	p[i] = pi - step*mi/(float32(math.Sqrt(float64(vi)))/sc2+eps)
}

// emSGD1 is sgd1 (kernels/optim.cu) in Go.
func emSGD1(p, g, buf []float32, i int64, lr, mom, wd float32, started bool) {
	pi := p[i]
	gi := g[i] + wd*pi
	if mom != 0 {
		if started {
			gi += mom * buf[i]
		}
		buf[i] = gi
	}
	p[i] = pi - lr*gi
}

// optimCase is an optimiser of gnnlib/nn over parameters.
type optimCase struct {
	name string
	make func(ps []*tensor.Tensor) nn.Optimizer
}

var optimCases = []optimCase{
	{"Adam", func(ps []*tensor.Tensor) nn.Optimizer { return nn.NewAdam(ps, 0.01, 5e-4) }},
	{"AdamW", func(ps []*tensor.Tensor) nn.Optimizer { return nn.NewAdamW(ps, 0.01, 0.01) }},
	{"SGD momentum", func(ps []*tensor.Tensor) nn.Optimizer { return nn.NewSGD(ps, 0.05, 0.9, 5e-4) }},
	{"SGD", func(ps []*tensor.Tensor) nn.Optimizer { return nn.NewSGD(ps, 0.05, 0, 0) }},
}

// optimShapes are the parameters of the multi-tensor checks: more than
// optimMulti (two launches), a scalar, vectors, matrices, and sizes that
// are not multiples of the grid.
func optimShapes(big int) [][]int {
	shapes := [][]int{{1}, {1, 256}, {big, 7}, {3, 5}}
	for i := range 2*optimMulti + 3 {
		shapes = append(shapes, []int{1 + i%5, 1 + (i*7)%13})
	}
	return shapes
}

// runOptim makes parameters of shapes from seed, moves them to dev (nil:
// the CPU), takes steps of opt with gradients drawn from seed (the
// parameter noGrad without one), the last one on the CPU (the state
// moves back: Adam's moments, each to its own place, and SGD's momentum)
// and returns the parameters' values.
func runOptim(shapes [][]int, oc optimCase, dev tensor.Backend, seed uint64, steps, noGrad int) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	randn := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		return x
	}
	ps := make([]*tensor.Tensor, len(shapes))
	for i, s := range shapes {
		n := 1
		for _, v := range s {
			n *= v
		}
		ps[i] = tensor.Wrap(randn(n), s...)
		ps[i].SetRequiresGrad(true)
		if dev != nil {
			ps[i].MoveTo(dev)
		}
	}
	// Every step's gradients first, so that on a device the steps' launches
	// follow one another with no upload between them (one recorded
	// segment with GraphReplay).
	grads := make([][]*tensor.Tensor, steps)
	for k := range grads {
		grads[k] = make([]*tensor.Tensor, len(ps))
		for i, p := range ps {
			g := tensor.Wrap(randn(p.Len()), shapes[i]...)
			if dev != nil {
				g = g.To(dev)
			}
			grads[k][i] = g
		}
	}
	opt := oc.make(ps)
	for k := range steps {
		if k == steps-1 {
			for i, p := range ps {
				p.MoveTo(nil)
				grads[k][i] = grads[k][i].CPU()
			}
		}
		opt.ZeroGrad()
		for i, p := range ps {
			if i != noGrad {
				p.SetGrad(grads[k][i])
			}
		}
		opt.Step()
	}
	out := make([][]float32, len(ps))
	for i, p := range ps {
		out[i] = p.CPU().Data()
	}
	return out
}

// firstDiff returns where got and want first differ in their bits, or "".
func firstDiff(got, want [][]float32) string {
	for i := range want {
		for j := range want[i] {
			if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
				return fmt.Sprintf("parameter %d value %d: %v, want %v", i, j, got[i][j], want[i][j])
			}
		}
	}
	return ""
}

// TestMultiTensorOptimEmulated runs Adam, AdamW and SGD (with and without
// momentum) of gnnlib/nn over 71 parameters on a device whose kernels
// are emulated from their argument slots (memDriver), with
// tune.MultiTensorOptim off (a launch a parameter) and on (two
// adam_multi or sgd_multi launches a step: 32 tensors a launch), six
// steps there and a seventh back on the CPU, and checks both against the
// CPU optimisers bit for bit: the launch's tensor list reaches the
// kernel in the struct layout of kernels/optim.cu, every value of every
// tensor once, with its own state (the CPU step reads the moments the
// device kept as m and v). TestMultiTensorOptimPTX checks that layout
// against the PTX.
func TestMultiTensorOptimEmulated(t *testing.T) {
	defer func(on bool) { tune.MultiTensorOptim = on }(tune.MultiTensorOptim)
	defer func(a, g bool) { AutoReplay, GraphReplay = a, g }(AutoReplay, GraphReplay)
	shapes := optimShapes(1000)
	const noGrad, steps = 5, 7
	params := len(shapes)
	for _, oc := range optimCases {
		want := runOptim(shapes, oc, nil, 3, steps, noGrad)
		for _, c := range []struct {
			multi, replay bool
		}{{false, false}, {true, false}, {true, true}} {
			t.Run(fmt.Sprintf("%s/multi=%t/replay=%t", oc.name, c.multi, c.replay), func(t *testing.T) {
				tune.MultiTensorOptim = c.multi
				// With GraphReplay, segments of two steps (the first one's
				// moments are uploaded: it ends a segment), the second
				// and third of which run as one CUDA graph with the
				// gradients' pointers and the step sizes updated in
				// place.
				AutoReplay, GraphReplay = false, c.replay
				defer func(n int) { ReplaySegment = n }(ReplaySegment)
				ReplaySegment = 2 * (params - 1 + optimMulti - 1) / optimMulti
				if !c.multi {
					ReplaySegment = 2 * (params - 1)
				}
				drv := newMemDriver()
				d := openOn(t, drv, "memory (no GPU)")
				got := runOptim(shapes, oc, d.Backend(), 3, steps, noGrad)
				if diff := firstDiff(got, want); diff != "" {
					t.Errorf("%s on the device differs from the CPU: %s", oc.name, diff)
				}
				counts := countLaunches(drv.trace)
				single, multi := "adam_wd", "adam_multi"
				if strings.HasPrefix(oc.name, "SGD") {
					single, multi = "sgd_step", "sgd_multi"
				}
				wantSingle, wantMulti := (steps-1)*(params-1), 0 // the last step runs on the CPU
				if c.multi {
					wantSingle, wantMulti = 0, (steps-1)*((params-1+optimMulti-1)/optimMulti)
				}
				if counts[single] != wantSingle || counts[multi] != wantMulti {
					t.Errorf("%s: %s ×%d and %s ×%d over 6 device steps of %d parameters with gradients, want ×%d and ×%d (all: %v)",
						oc.name, single, counts[single], multi, counts[multi], params-1, wantSingle, wantMulti, counts)
				}
				if c.replay && (drv.graphs == 0 || drv.updates == 0) {
					t.Errorf("%s: %d graphs made and %d nodes updated with GraphReplay on, want some of both", oc.name, drv.graphs, drv.updates)
				}
			})
		}
	}
}

// TestMultiTensorOptimPTX checks adam_multi and sgd_multi in the PTX
// against the argument slots launchMulti fills: the scalar parameters
// (optimSlots) and, last, the tensor list of optimMulti sizes and
// optimMulti pointers a list, 8 bytes each.
func TestMultiTensorOptimPTX(t *testing.T) {
	params := ptxParams()
	for kernel, lay := range optimSlots {
		if got := params[kernel]; got != lay.scalars+1 {
			t.Errorf("%s has %d parameters in the PTX, want %d scalars and the list", kernel, got, lay.scalars)
		}
		re := regexp.MustCompile(`\.param \.align 8 \.b8 ` + kernel + `_param_(\d+)\[(\d+)\]`)
		m := re.FindStringSubmatch(ptxSource)
		if m == nil {
			t.Errorf("%s: no struct parameter in the PTX", kernel)
			continue
		}
		idx, _ := strconv.Atoi(m[1])
		size, _ := strconv.Atoi(m[2])
		if idx != lay.scalars || size != 8*optimMulti*(1+lay.lists) {
			t.Errorf("%s: struct parameter %d of %d bytes, want parameter %d of %d", kernel, idx, size, lay.scalars, 8*optimMulti*(1+lay.lists))
		}
	}
}

// TestMultiTensorOptimErrors: lists of different lengths, a missing
// moment and a state of the wrong size fail with ErrShape naming the
// problem, and nothing is launched.
func TestMultiTensorOptimErrors(t *testing.T) {
	defer func(on bool) { tune.MultiTensorOptim = on }(tune.MultiTensorOptim)
	tune.MultiTensorOptim = true
	d, drv := openRecorder(t)
	be := d.be
	mk := func(n int) *tensor.Tensor { return tensor.Zeros(n).To(d.Backend()) }
	p, g, m, v := mk(4), mk(4), mk(4), mk(3)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"lengths", be.AdamSteps([]*tensor.Tensor{p}, nil, nil, nil, 1, 0.9, 0.999, 1e-8, 1, 0, 1, false), "1 parameters, 0 gradients"},
		{"no moment", be.AdamSteps([]*tensor.Tensor{p}, []*tensor.Tensor{g}, []*tensor.Tensor{m}, []*tensor.Tensor{nil}, 1, 0.9, 0.999, 1e-8, 1, 0, 1, false), "parameter 0: no state"},
		{"moment size", be.AdamSteps([]*tensor.Tensor{p}, []*tensor.Tensor{g}, []*tensor.Tensor{m}, []*tensor.Tensor{v}, 1, 0.9, 0.999, 1e-8, 1, 0, 1, false), "4 values, state of 3"},
		{"no buffer", be.SGDSteps([]*tensor.Tensor{p}, []*tensor.Tensor{g}, nil, 0.1, 0.9, 0, false), "momentum 0.9 without a buffer"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, c.err, c.want)
		}
	}
	if len(drv.launches) != 0 {
		t.Errorf("failed steps launched %d kernels", len(drv.launches))
	}
}

// TestMultiTensorOptimLaunches lists the optimiser's launches in the
// arxiv-width nn GCN and GATv2 epochs (nnEpochLaunches, float32 and
// under Autocast(BFloat16)) with tune.MultiTensorOptim off and on: on,
// one adam_multi replaces the adam_wd a parameter, and nothing else
// changes.
func TestMultiTensorOptimLaunches(t *testing.T) {
	defer func(on bool) { tune.MultiTensorOptim = on }(tune.MultiTensorOptim)
	hg := epochGraph(t, 2000)
	for _, kind := range []string{"gcn", "gatv2"} {
		dims := []int{128, 256, 256, 40}
		for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
			tune.MultiTensorOptim = false
			off := nnEpochLaunchesAMP(t, kind, hg, dims, dt)
			tune.MultiTensorOptim = true
			on := nnEpochLaunchesAMP(t, kind, hg, dims, dt)
			params := (len(dims) - 1) * map[string]int{"gcn": 2, "gatv2": 4}[kind]
			t.Logf("%s %v: %d launches with tune.MultiTensorOptim off, %d on (adam_wd ×%d -> adam_multi ×%d)", kind, dt, off.total(), on.total(), off["adam_wd"], on["adam_multi"])
			if off["adam_wd"] != params || on["adam_wd"] != 0 || on["adam_multi"] != 1 {
				t.Errorf("%s %v: adam_wd ×%d off, ×%d on, adam_multi ×%d on; want ×%d, ×0, ×1", kind, dt, off["adam_wd"], on["adam_wd"], on["adam_multi"], params)
			}
			want := maps.Clone(off)
			delete(want, "adam_wd")
			want["adam_multi"] = 1
			if got := on.String(); got != want.String() {
				t.Errorf("%s %v: with tune.MultiTensorOptim the epoch launches %s, want %s", kind, dt, got, want)
			}
		}
	}
}

// TestMultiTensorOptim runs gnnlib/nn's Adam, AdamW and SGD over 71
// device parameters (one of a million values) with tune.MultiTensorOptim
// off and on and checks that the parameters agree bit for bit: the
// multi-tensor kernels compute each value as the per-parameter ones do.
// It needs a GPU.
func TestMultiTensorOptim(t *testing.T) {
	d := openOrSkip(t)
	defer func(on bool) { tune.MultiTensorOptim = on }(tune.MultiTensorOptim)
	shapes := optimShapes(1 << 20 / 7)
	for _, oc := range optimCases {
		tune.MultiTensorOptim = false
		off := runOptim(shapes, oc, d.Backend(), 5, 3, 5)
		tune.MultiTensorOptim = true
		on := runOptim(shapes, oc, d.Backend(), 5, 3, 5)
		if diff := firstDiff(on, off); diff != "" {
			t.Errorf("%s with tune.MultiTensorOptim: %s (off)", oc.name, diff)
		}
		cpu := runOptim(shapes, oc, nil, 5, 3, 5)
		var worst float64
		for i := range cpu {
			for j := range cpu[i] {
				worst = max(worst, math.Abs(float64(on[i][j]-cpu[i][j]))/(1+math.Abs(float64(cpu[i][j]))))
			}
		}
		t.Logf("%s: the device's parameters within %.3g of the CPU's (relative)", oc.name, worst)
		if worst > 1e-5 {
			t.Errorf("%s: the device's parameters differ from the CPU's by %.3g (relative)", oc.name, worst)
		}
	}
}

// BenchmarkMultiTensorOptimHost is BenchmarkNNEpochHost's arxiv-sized
// GCN and GATv2 epochs (recording driver: the host's time to issue an
// epoch, in float32 and under Autocast(BFloat16)) with
// tune.MultiTensorOptim off and on: two models on two recording devices
// whose epochs alternate, each timed, so that both see the same load
// and collections. It reports each one's median ms/epoch and their
// ratio.
func BenchmarkMultiTensorOptimHost(b *testing.B) {
	defer func(on bool) { tune.MultiTensorOptim = on }(tune.MultiTensorOptim)
	n := 169_343
	hg := testGraph(b, n, 14*n, false)
	for _, kind := range []string{"gcn", "gatv2"} {
		newConv := epochConv(kind)
		dims := []int{128, 256, 256, 40}
		for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
			b.Run(fmt.Sprintf("%s/%v", kind, dt), func(b *testing.B) {
				var epochs [2]func()
				var drvs [2]*recordDriver
				for k := range epochs {
					d, drv := openRecorder(b)
					d.desc = "record (sm_90, no GPU)"
					epochs[k], drvs[k] = nnEpoch(d, hg, dims, newConv, func(f func()) { tensor.Autocast(dt, f) }), drv
				}
				run := func(k int) float64 {
					tune.MultiTensorOptim = k == 1
					drvs[k].trace, drvs[k].launches = drvs[k].trace[:0], drvs[k].launches[:0]
					t0 := time.Now()
					epochs[k]()
					return float64(time.Since(t0).Microseconds()) / 1e3
				}
				for range 2 {
					run(0)
					run(1)
				}
				var times [2][]float64
				b.ResetTimer()
				for range b.N {
					for k := range epochs {
						times[k] = append(times[k], run(k))
					}
				}
				b.StopTimer()
				med := func(x []float64) float64 { slices.Sort(x); return x[len(x)/2] }
				off, on := med(times[0]), med(times[1])
				b.ReportMetric(off, "ms/epoch-off")
				b.ReportMetric(on, "ms/epoch-on")
				b.ReportMetric(on/off, "x-off")
			})
		}
	}
}

// BenchmarkAdamStepsHost times the host side of one Adam step over 6 and
// 12 parameters of 256x256 (the GCN and GATv2 epochs' counts) on the
// recording driver with tune.MultiTensorOptim off and on, alternating
// step by step, and reports each one's median µs/step and their ratio.
func BenchmarkAdamStepsHost(b *testing.B) {
	defer func(on bool) { tune.MultiTensorOptim = on }(tune.MultiTensorOptim)
	for _, np := range []int{6, 12} {
		b.Run(fmt.Sprintf("params=%d", np), func(b *testing.B) {
			d, drv := openRecorder(b)
			mk := func() []*tensor.Tensor {
				ts := make([]*tensor.Tensor, np)
				for i := range ts {
					ts[i] = tensor.Zeros(256, 256).To(d.Backend())
				}
				return ts
			}
			ps, gs, ms, vs := mk(), mk(), mk(), mk()
			step := func(multi bool) float64 {
				tune.MultiTensorOptim = multi
				drv.trace, drv.launches = drv.trace[:0], drv.launches[:0]
				t0 := time.Now()
				if err := d.be.AdamSteps(ps, gs, ms, vs, 0.1, 0.9, 0.999, 1e-8, 1, 0, 1, false); err != nil {
					b.Fatal(err)
				}
				return float64(time.Since(t0).Nanoseconds()) / 1e3
			}
			var off, on []float64
			b.ResetTimer()
			for range b.N {
				off = append(off, step(false))
				on = append(on, step(true))
			}
			b.StopTimer()
			med := func(x []float64) float64 { slices.Sort(x); return x[len(x)/2] }
			b.ReportMetric(med(off), "µs/step-off")
			b.ReportMetric(med(on), "µs/step-on")
			b.ReportMetric(med(on)/med(off), "x-off")
		})
	}
}
