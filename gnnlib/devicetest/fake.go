package devicetest

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/graph/kernels"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// Fake is a tensor.Backend with backend.GraphOps whose memory is host memory
// and whose ops are the CPU's own, run on host copies of their operands.
// Run with it, the suite checks the device dispatch of gnnlib/tensor and
// gnnlib/nn — which ops reach a backend, with which shapes, and how their
// backward passes and the optimisers are wired — on any machine;
// gnnlib/cuda runs the same suite on a GPU to check its kernels.
//
// Storage freed by a backward pass (Free) is poisoned: a later read panics,
// which catches a BackwardFunc that hands back memory still in use. Each
// *Fake is a device of its own; use one per test.
//
// A Fake keeps a ledger of its memory (MemStats, ResetPeak, and Memory
// for tensor.MemoryOf), so that what a training step holds on a device —
// the storage the autograd tape keeps, what the backward pass and the
// layers free — is measured on any machine.
type Fake struct {
	// NoFusedAttention makes GATAttention and GATv2Attention refuse every
	// shape with an error wrapping tensor.ErrNotOnDevice, as a backend's
	// fused kernels refuse the shapes they do not take, so that gnnlib/nn
	// runs its composed device path instead.
	NoFusedAttention bool
	// Collect runs the garbage collector before each allocation, so that
	// MemStats' Live counts exactly the storage still reachable (slow:
	// for memory measurements, not for the suite).
	Collect bool
	// CollectWhen, when set, emulates an allocator that starts garbage
	// collections itself, as gnnlib/cuda's pool does: before each
	// allocation it is given the bytes allocated since the last such
	// collection and the bytes held (what the pool counts in use, the
	// unreachable blocks not yet finalised included), and when it
	// returns true the collector runs and the blocks it finds unreachable
	// leave Held at once, as if their finalisers ran at once. MemStats'
	// PeakHeld is then the device's peak under that policy, a little
	// optimistic.
	CollectWhen func(since, held int64) bool

	mem fakeMem
	// calls counts the calls of the ops Calls reports.
	calls sync.Map // string -> *atomic.Int64
}

// Calls returns how many times the op name ran on f: "ColSum",
// "ReLUDropoutGrad", "ReLUDropoutGradColSum", "GATv2AttentionPair",
// "BiasReLUDropout" and "GraphSpMMBiasReLUDropout" are counted, so that a test sees which of the fused passes a layer
// took.
func (f *Fake) Calls(name string) int {
	if c, ok := f.calls.Load(name); ok {
		return int(c.(*atomic.Int64).Load())
	}
	return 0
}

// count adds a call of op name.
func (f *Fake) count(name string) {
	c, _ := f.calls.LoadOrStore(name, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
}

type fakeStore struct {
	dev   *Fake
	data  []float32
	freed bool
	blk   *fakeBlock
	dtype tensor.DType // Float32, or the 16-bit format of ToHalf's storage
}

// DType returns the format s stands for: its values are held as float32
// but, for 16-bit storage, are all values of the format and charged two
// bytes each.
func (s *fakeStore) DType() tensor.DType { return s.dtype }

// Backend returns the fake device holding s.
func (s *fakeStore) Backend() tensor.Backend { return s.dev }

// Free marks the storage released, as gnnlib/cuda's allocator would.
func (s *fakeStore) Free() {
	s.freed, s.data = true, nil
	s.dev.mem.free(s.blk)
}

// String names the device.
func (f *Fake) String() string { return "fake:0" }

// storeCast returns t's values rounded to dt in storage of dt: what a
// device that keeps 16-bit storage returns from the ops it runs in 16 bits
// under Autocast (gnnlib/cuda's MatMul and GraphSpMM), so that the layers
// of gnnlib/nn meet 16-bit intermediates on the Fake too.
func (f *Fake) storeCast(t *tensor.Tensor, dt tensor.DType) *fakeStore {
	d := slices.Clone(t.Data())
	for i, v := range d {
		d[i] = dt.Round(v)
	}
	return f.newStoreOf(d, dt)
}

// store returns a copy of a host tensor's values as device storage.
func (f *Fake) store(t *tensor.Tensor) *fakeStore {
	return f.newStore(slices.Clone(t.Data()))
}

// host returns x's values as a host tensor of x's shape, without a copy.
func (f *Fake) host(x *tensor.Tensor) *tensor.Tensor {
	s, ok := x.Storage().(*fakeStore)
	if !ok || s.dev != f {
		panic(fmt.Sprintf("devicetest.Fake: a tensor %v that is not on the fake device", x.Shape()))
	}
	if s.freed {
		panic(fmt.Sprintf("devicetest.Fake: a tensor %v read after its storage was freed", x.Shape()))
	}
	if len(s.data) != x.Len() {
		panic(fmt.Sprintf("devicetest.Fake: a tensor %v over storage of %d values", x.Shape(), len(s.data)))
	}
	if x.Dims() == 0 { // Wrap reads no shape as 1-D
		return tensor.Wrap(s.data, 1).Reshape()
	}
	return tensor.Wrap(s.data, x.Shape()...)
}

// hostRun evaluates a host op without recording it.
func hostRun(fn func() *tensor.Tensor) (out *tensor.Tensor) {
	tensor.NoGrad(func() { out = fn() })
	return out
}

// autograd runs fn on host copies of xs that require gradients and returns
// its output and a backward function giving one gradient per input.
func (f *Fake) autograd(fn func(in []*tensor.Tensor) *tensor.Tensor, xs ...*tensor.Tensor) (*fakeStore, func(g *tensor.Tensor) []tensor.Storage) {
	ins := make([]*tensor.Tensor, len(xs))
	for i, x := range xs {
		ins[i] = f.host(x).Clone().SetRequiresGrad(true)
	}
	out := fn(ins)
	return f.store(out), func(g *tensor.Tensor) []tensor.Storage {
		for _, in := range ins {
			in.ZeroGrad()
		}
		out.BackwardWith(f.host(g).Clone())
		res := make([]tensor.Storage, len(ins))
		for i, in := range ins {
			gr := in.Grad()
			if gr == nil {
				gr = tensor.ZerosLike(in)
			}
			res[i] = f.store(gr)
		}
		return res
	}
}

func (f *Fake) Upload(data []float32, shape []int) (tensor.Storage, error) {
	return f.newStore(slices.Clone(data)), nil
}

func (f *Fake) Download(dst []float32, t *tensor.Tensor) error {
	copy(dst, f.host(t).Data())
	return nil
}

func (f *Fake) Copy(t *tensor.Tensor) (tensor.Storage, error) { return f.store(f.host(t)), nil }

func (f *Fake) AddTo(dst, src *tensor.Tensor) error {
	d, s := f.host(dst).Data(), f.host(src).Data()
	dt := dst.DType() // 16-bit storage: summed in float32, rounded once
	for i := range d {
		d[i] = dt.Round(d[i] + s[i])
	}
	return nil
}

func (f *Fake) Scale(n int, x, s *tensor.Tensor, k float32) (tensor.Storage, error) {
	out := make([]float32, n)
	for i := range out {
		v := k
		if x != nil {
			v *= f.host(x).Data()[i]
		}
		if s != nil {
			v *= f.host(s).Data()[0]
		}
		out[i] = v
	}
	return f.newStore(out), nil
}

func (f *Fake) MatMul(a, b *tensor.Tensor, transA, transB bool) (tensor.Storage, error) {
	x, y := f.host(a), f.host(b)
	if dt := tensor.AutocastDType(); dt != tensor.Float32 {
		// As gnnlib/cuda's tensor cores under Autocast: both operands
		// read in dt (a float32 weight rounded), the product stored in dt.
		x, y = hostRun(func() *tensor.Tensor { return x.RoundTo(dt) }), hostRun(func() *tensor.Tensor { return y.RoundTo(dt) })
		return f.storeCast(hostRun(func() *tensor.Tensor {
			if transA {
				x = x.T()
			}
			if transB {
				y = y.T()
			}
			return x.MatMul(y)
		}), dt), nil
	}
	return f.store(hostRun(func() *tensor.Tensor {
		if transA {
			x = x.T()
		}
		if transB {
			y = y.T()
		}
		return x.MatMul(y)
	})), nil
}

// MatMulPrefix is nn.PrefixMatMulOps': MatMul of a's first aRows rows
// (float32 only, as gnnlib/cuda's).
func (f *Fake) MatMulPrefix(a, b *tensor.Tensor, aRows int, transA, transB bool) (tensor.Storage, error) {
	f.count("MatMulPrefix")
	p, err := f.prefixProduct(a, b, aRows, transA, transB)
	if err != nil {
		return nil, err
	}
	return f.store(p), nil
}

// MatMulPrefixAdd is nn.PrefixMatMulOps': the product of a's first aRows
// rows and b added into dst's first rows in place (float32 only).
func (f *Fake) MatMulPrefixAdd(dst, a, b *tensor.Tensor, aRows int, transA, transB bool) error {
	f.count("MatMulPrefixAdd")
	s, ok := dst.Storage().(*fakeStore)
	if !ok || s.dev != f || s.freed || dst.Dims() != 2 || dst.DType() != tensor.Float32 {
		return fmt.Errorf("devicetest.Fake: MatMulPrefixAdd into %v %v: %w", dst.DType(), dst.Shape(), tensor.ErrNotOnDevice)
	}
	p, err := f.prefixProduct(a, b, aRows, transA, transB)
	if err != nil {
		return err
	}
	if p.Size(0) > dst.Size(0) || p.Size(1) != dst.Size(1) {
		return fmt.Errorf("devicetest.Fake: MatMulPrefixAdd of a %v product into %v", p.Shape(), dst.Shape())
	}
	for i, v := range p.Data() {
		s.data[i] += v
	}
	return nil
}

// prefixProduct is op(a[:aRows])·op(b) on the host, float32 operands only.
func (f *Fake) prefixProduct(a, b *tensor.Tensor, aRows int, transA, transB bool) (*tensor.Tensor, error) {
	if a.DType() != tensor.Float32 || b.DType() != tensor.Float32 || tensor.AutocastDType() != tensor.Float32 {
		return nil, fmt.Errorf("devicetest.Fake: a product of %v row prefixes: %w", a.DType(), tensor.ErrNotOnDevice)
	}
	x, y := f.host(a), f.host(b)
	if x.Dims() != 2 || aRows < 0 || aRows > x.Size(0) {
		return nil, fmt.Errorf("devicetest.Fake: %d rows of %v", aRows, x.Shape())
	}
	if transA && transB {
		return nil, fmt.Errorf("devicetest.Fake: a product of two transposed operands")
	}
	return hostRun(func() *tensor.Tensor {
		x = x.Narrow(0, 0, aRows)
		if transA {
			x = x.T()
		}
		if transB {
			y = y.T()
		}
		return x.MatMul(y)
	}), nil
}

func (f *Fake) Binary(op backend.BinaryOp, a, b *tensor.Tensor) (tensor.Storage, error) {
	x, y := f.host(a), f.host(b)
	switch s := x.Shape(); {
	case y.Len() == x.Len():
		y = y.Reshape(s...)
	case len(s) > 0 && y.Len() == s[len(s)-1]:
		y = y.Reshape(y.Len())
	case y.Len() == 1:
		y = y.Reshape(1)
	default:
		return nil, fmt.Errorf("devicetest.Fake: Binary %v %v %v", s, op, y.Shape())
	}
	fn := map[backend.BinaryOp]func(*tensor.Tensor, *tensor.Tensor) *tensor.Tensor{
		backend.BinaryAdd: (*tensor.Tensor).Add, backend.BinarySub: (*tensor.Tensor).Sub, backend.BinaryMul: (*tensor.Tensor).Mul, backend.BinaryDiv: (*tensor.Tensor).Div}[op]
	if fn == nil {
		return nil, fmt.Errorf("devicetest.Fake: Binary %v: %w", op, tensor.ErrNotOnDevice)
	}
	return f.store(hostRun(func() *tensor.Tensor { return fn(x, y) })), nil
}

// Map runs the op's host reference (mapForward, generated from the op
// table with the op codes).
func (f *Fake) Map(op backend.MapOp, x *tensor.Tensor, p float32) (tensor.Storage, error) {
	if int(op) >= len(mapForward) {
		return nil, fmt.Errorf("devicetest.Fake: Map %v: %w", op, tensor.ErrNotOnDevice)
	}
	return f.store(hostRun(func() *tensor.Tensor { return mapForward[op](f.host(x), p) })), nil
}

// MapGrad applies the op's derivative (mapDerivative, generated from the
// op table): it runs inside a backward pass, where nothing records a
// graph to differentiate.
func (f *Fake) MapGrad(op backend.MapOp, g, x, y *tensor.Tensor, p float32) (tensor.Storage, error) {
	if int(op) >= len(mapDerivative) {
		return nil, fmt.Errorf("devicetest.Fake: MapGrad %v: %w", op, tensor.ErrNotOnDevice)
	}
	d := mapDerivative[op]
	gd, xd, yd := f.host(g).Data(), f.host(x).Data(), f.host(y).Data()
	out := make([]float32, len(gd))
	for i, gi := range gd {
		out[i] = gi * d(xd[i], yd[i], p)
	}
	return f.newStore(out), nil
}

// geluGrad is the derivative of GELU's tanh approximation.
func geluGrad(v float32) float32 {
	u := float64(v)
	th := math.Tanh(0.7978845608028654 * (u + 0.044715*u*u*u))
	return float32(0.5*(1+th) + 0.5*u*(1-th*th)*0.7978845608028654*(1+3*0.044715*u*u))
}

func ifElse(c bool, a, b float32) float32 {
	if c {
		return a
	}
	return b
}

func (f *Fake) ColSum(x *tensor.Tensor) (tensor.Storage, error) {
	f.count("ColSum")
	return f.colSum(x)
}

func (f *Fake) colSum(x *tensor.Tensor) (tensor.Storage, error) {
	h := f.host(x)
	cols := h.Shape()[h.Dims()-1]
	return f.store(hostRun(func() *tensor.Tensor { return h.Reshape(-1, cols).SumAxis(0, false) })), nil
}

func (f *Fake) Sum(x *tensor.Tensor) (tensor.Storage, error) {
	return f.store(hostRun(f.host(x).Sum)), nil
}

// dropKeep is the fake's dropout mask: a hash of (seed, index).
func dropKeep(seed uint64, i int, p float32) float32 {
	z := seed + 0x9e3779b97f4a7c15*uint64(i+1)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	if float32(z>>40)/(1<<24) < p {
		return 0
	}
	return 1 / (1 - p)
}

func (f *Fake) Dropout(x *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error) {
	d := slices.Clone(f.host(x).Data())
	for i := range d {
		d[i] *= dropKeep(seed, i, p)
	}
	return f.newStore(d), nil
}

func (f *Fake) DropoutGrad(g *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error) {
	return f.Dropout(g, p, seed)
}

// GraphSpMMBias is nn.GraphSpMMBiasOps': GraphSpMM, then the bias added.
func (f *Fake) GraphSpMMBias(g *graph.Graph, weighted bool, x, b *tensor.Tensor) (tensor.Storage, error) {
	s, err := f.GraphSpMM(g, weighted, false, x)
	if err != nil {
		return nil, err
	}
	return f.Binary(backend.BinaryAdd, backend.FromStorage(s, g.NumNodes(), x.Size(1)), b)
}

// BiasReLUDropout is nn.BiasActOps': ReLUDropout of x + b (b broadcast
// over the rows, the sum rounded to x's format), written over x.
func (f *Fake) BiasReLUDropout(x, b *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error) {
	f.count("BiasReLUDropout")
	s, ok := x.Storage().(*fakeStore)
	bv := f.host(b).Data()
	if !ok || s.dev != f || x.Dims() != 2 || len(bv) != x.Size(1) {
		return nil, fmt.Errorf("devicetest.Fake: BiasReLUDropout of %v with a bias of %d", x.Shape(), len(bv))
	}
	dt := x.DType()
	for i, v := range s.data {
		s.data[i] = dt.Round(max(dt.Round(v+bv[i%len(bv)]), 0) * dropKeep(seed, i, p))
	}
	return s, nil
}

// GraphSpMMBiasReLUDropout is nn.BiasActOps': GraphSpMMBias, then
// BiasReLUDropout's ReLU and dropout over it.
func (f *Fake) GraphSpMMBiasReLUDropout(g *graph.Graph, weighted bool, x, b *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error) {
	f.count("GraphSpMMBiasReLUDropout")
	s, err := f.GraphSpMMBias(g, weighted, x, b)
	if err != nil {
		return nil, err
	}
	out := s.(*fakeStore)
	dt := out.dtype
	for i, v := range out.data {
		out.data[i] = dt.Round(max(v, 0) * dropKeep(seed, i, p))
	}
	return out, nil
}

// ReLUDropout is nn.ReLUDropoutOps': Dropout of the ReLU, the same mask.
func (f *Fake) ReLUDropout(x *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error) {
	d := slices.Clone(f.host(x).Data())
	for i, v := range d {
		d[i] = max(v, 0) * dropKeep(seed, i, p)
	}
	return f.newStore(d), nil
}

// ReLUDropoutGrad passes g/(1-p) where ReLUDropout's output y is not zero.
func (f *Fake) ReLUDropoutGrad(g, y *tensor.Tensor, p float32) (tensor.Storage, error) {
	f.count("ReLUDropoutGrad")
	return f.reluDropoutGrad(g, y, p)
}

func (f *Fake) reluDropoutGrad(g, y *tensor.Tensor, p float32) (tensor.Storage, error) {
	d := slices.Clone(f.host(g).Data())
	for i, v := range f.host(y).Data() {
		if v != 0 {
			d[i] *= 1 / (1 - p)
		} else {
			d[i] = 0
		}
	}
	return f.newStore(d), nil
}

// ReLUDropoutGradColSum is nn.ReLUDropoutColSumOps': ReLUDropoutGrad
// and ColSum of its result.
func (f *Fake) ReLUDropoutGradColSum(g, y *tensor.Tensor, p float32) (gx, colSum tensor.Storage, err error) {
	f.count("ReLUDropoutGradColSum")
	gx, _ = f.reluDropoutGrad(g, y, p)
	colSum, _ = f.colSum(backend.FromStorage(gx, g.Shape()...))
	return gx, colSum, nil
}

func (f *Fake) CrossEntropy(logits *tensor.Tensor, labels, rows []int) (loss, grad tensor.Storage, err error) {
	l, back := f.autograd(func(in []*tensor.Tensor) *tensor.Tensor { return tensor.CrossEntropy(in[0], labels, rows) }, logits)
	return l, back(tensor.Scalar(1).To(f))[0], nil
}

func (f *Fake) SumAxis(x *tensor.Tensor, axis int, scale float32) (tensor.Storage, error) {
	return f.store(hostRun(func() *tensor.Tensor { return f.host(x).SumAxis(axis, false).MulScalar(scale) })), nil
}

func (f *Fake) ExpandAxis(g *tensor.Tensor, shape []int, axis int, scale float32) (tensor.Storage, error) {
	kept := slices.Clone(shape)
	kept[axis] = 1
	return f.store(hostRun(func() *tensor.Tensor {
		return tensor.Zeros(shape...).Add(f.host(g).Reshape(kept...)).MulScalar(scale)
	})), nil
}

func (f *Fake) Softmax(x *tensor.Tensor, axis int, log bool) (tensor.Storage, error) {
	return f.store(hostRun(func() *tensor.Tensor {
		if log {
			return f.host(x).LogSoftmax(axis)
		}
		return f.host(x).Softmax(axis)
	})), nil
}

func (f *Fake) SoftmaxGrad(g, y *tensor.Tensor, axis int, log bool) (tensor.Storage, error) {
	gh, yh := f.host(g), f.host(y)
	return f.store(hostRun(func() *tensor.Tensor {
		if log { // g - e^y·Σg
			return gh.Sub(yh.Exp().Mul(gh.SumAxis(axis, true)))
		}
		return yh.Mul(gh.Sub(gh.Mul(yh).SumAxis(axis, true)))
	})), nil
}

func (f *Fake) ArgReduce(x *tensor.Tensor, axis int, wantMax bool) ([]int, error) {
	if wantMax {
		return f.host(x).ArgMax(axis), nil
	}
	return f.host(x).ArgMin(axis), nil
}

func (f *Fake) Gather(x *tensor.Tensor, idx []int) (tensor.Storage, error) {
	return f.store(hostRun(func() *tensor.Tensor { return f.host(x).IndexSelect(idx) })), nil
}

func (f *Fake) ScatterAdd(src *tensor.Tensor, idx []int, n int) (tensor.Storage, error) {
	return f.store(hostRun(func() *tensor.Tensor { return tensor.ScatterAddRows(f.host(src), idx, n) })), nil
}

func (f *Fake) Concat(axis int, xs []*tensor.Tensor) (tensor.Storage, error) {
	hs := make([]*tensor.Tensor, len(xs))
	for i, x := range xs {
		hs[i] = f.host(x)
	}
	return f.store(hostRun(func() *tensor.Tensor { return tensor.Concat(axis, hs...) })), nil
}

func (f *Fake) Narrow(x *tensor.Tensor, axis, start, length int) (tensor.Storage, error) {
	return f.store(hostRun(func() *tensor.Tensor { return f.host(x).Narrow(axis, start, length) })), nil
}

func (f *Fake) Loss(op backend.LossOp, pred, target *tensor.Tensor) (loss, grad tensor.Storage, err error) {
	fn := map[backend.LossOp]func(a, b *tensor.Tensor) *tensor.Tensor{backend.LossMSE: tensor.MSE, backend.LossBCELogits: tensor.BCEWithLogits}[op]
	if fn == nil {
		return nil, nil, fmt.Errorf("devicetest.Fake: Loss %v: %w", op, tensor.ErrNotOnDevice)
	}
	t := f.host(target)
	l, back := f.autograd(func(in []*tensor.Tensor) *tensor.Tensor { return fn(in[0], t) }, pred)
	return l, back(tensor.Scalar(1).To(f))[0], nil
}

func (f *Fake) NLL(logp *tensor.Tensor, labels, rows []int) (loss, grad tensor.Storage, err error) {
	l, back := f.autograd(func(in []*tensor.Tensor) *tensor.Tensor { return tensor.NLL(in[0], labels, rows) }, logp)
	return l, back(tensor.Scalar(1).To(f))[0], nil
}

func (f *Fake) Permute(x *tensor.Tensor, perm []int) (tensor.Storage, error) {
	return f.store(hostRun(func() *tensor.Tensor { return f.host(x).Permute(perm...) })), nil
}

// fields returns the size of Im2Col's matrix for an image of shape
// [N, C, H, W] and calls fn(i, src) for each of its entries, i the flat
// index into the matrix and src the input's flat index (-1: padding).
func fields(shape []int, kh, kw, stride, padding int, fn func(i, src int)) (rows, ckk int) {
	n, c, h, w := shape[0], shape[1], shape[2], shape[3]
	oh, ow := (h+2*padding-kh)/stride+1, (w+2*padding-kw)/stride+1
	ckk = c * kh * kw
	for img := 0; img < n; img++ {
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				row := (img*oh+oy)*ow + ox
				for ch := 0; ch < c; ch++ {
					for i := 0; i < kh; i++ {
						for j := 0; j < kw; j++ {
							y, xx := oy*stride-padding+i, ox*stride-padding+j
							src := -1
							if y >= 0 && y < h && xx >= 0 && xx < w {
								src = ((img*c+ch)*h+y)*w + xx
							}
							fn(row*ckk+(ch*kh+i)*kw+j, src)
						}
					}
				}
			}
		}
	}
	return n * oh * ow, ckk
}

func (f *Fake) Im2Col(x *tensor.Tensor, kh, kw, stride, padding int) (tensor.Storage, error) {
	xd := f.host(x).Data()
	rows, ckk := fields(x.Shape(), kh, kw, stride, padding, func(int, int) {})
	out := make([]float32, rows*ckk)
	fields(x.Shape(), kh, kw, stride, padding, func(i, src int) {
		if src >= 0 {
			out[i] = xd[src]
		}
	})
	return f.newStore(out), nil
}

func (f *Fake) Col2Im(cols *tensor.Tensor, shape []int, kh, kw, stride, padding int) (tensor.Storage, error) {
	cd := f.host(cols).Data()
	out := make([]float32, shape[0]*shape[1]*shape[2]*shape[3])
	fields(shape, kh, kw, stride, padding, func(i, src int) {
		if src >= 0 {
			out[src] += cd[i]
		}
	})
	return f.newStore(out), nil
}

func (f *Fake) Pool2D(op backend.PoolOp, x *tensor.Tensor, kernel, stride int) (tensor.Storage, error) {
	return f.store(hostRun(func() *tensor.Tensor {
		if op == backend.PoolMax {
			return f.host(x).MaxPool2D(kernel, stride)
		}
		return f.host(x).AvgPool2D(kernel, stride)
	})), nil
}

// Pool2DGrad spells the gradient out (it runs inside a backward pass).
func (f *Fake) Pool2DGrad(op backend.PoolOp, g, x *tensor.Tensor, kernel, stride int) (tensor.Storage, error) {
	s := x.Shape()
	h, w := s[2], s[3]
	oh, ow := (h-kernel)/stride+1, (w-kernel)/stride+1
	gd, xd := f.host(g).Data(), f.host(x).Data()
	dx := make([]float32, len(xd))
	for pl := 0; pl < s[0]*s[1]; pl++ {
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				v := gd[(pl*oh+oy)*ow+ox]
				base := pl*h*w + oy*stride*w + ox*stride
				bi := base
				for i := 0; i < kernel; i++ {
					for j := 0; j < kernel; j++ {
						q := base + i*w + j
						if op == backend.PoolAvg {
							dx[q] += v / float32(kernel*kernel)
						} else if xd[q] > xd[bi] {
							bi = q
						}
					}
				}
				if op == backend.PoolMax {
					dx[bi] += v
				}
			}
		}
	}
	return f.newStore(dx), nil
}

// The backend.GraphOps.

func (f *Fake) GraphSpMM(g *graph.Graph, weighted, transpose bool, x *tensor.Tensor) (tensor.Storage, error) {
	mode := noWeights
	if weighted {
		mode = edgeWeights
	}
	f.chargeGraph(g, mode)
	h := f.host(x)
	w := []float32(nil)
	if weighted {
		w = g.Weights
	}
	c := h.Size(1)
	xs := h.Data()
	dt := tensor.AutocastDType()
	if dt != tensor.Float32 {
		// As gnnlib/cuda under Autocast: x read in dt, the sums stored
		// in dt (storeCast).
		xs = slices.Clone(xs)
		for i, v := range xs {
			xs[i] = dt.Round(v)
		}
	}
	var out []float32
	if transpose {
		out = make([]float32, g.NumSrc()*c)
		kernels.SpMMT(g, out, xs, c, w)
	} else {
		out = make([]float32, g.NumNodes()*c)
		kernels.SpMM(g, out, xs, c, w)
	}
	if dt != tensor.Float32 {
		return f.storeCast(tensor.Wrap(out, len(out)), dt), nil
	}
	return f.newStore(out), nil
}

func (f *Fake) GraphMeanSpMM(g *graph.Graph, transpose bool, x *tensor.Tensor) (tensor.Storage, error) {
	f.chargeGraph(g, meanWeights)
	h := f.host(x)
	c := h.Size(1)
	if transpose {
		out := make([]float32, g.NumSrc()*c)
		kernels.MeanAggregateT(g, out, h.Data(), c)
		return f.newStore(out), nil
	}
	out := make([]float32, g.NumNodes()*c)
	kernels.MeanAggregate(g, out, h.Data(), c)
	return f.newStore(out), nil
}

func (f *Fake) GATv2Attention(g *graph.Graph, hs, hd, att *tensor.Tensor, heads int, slope, p float32, seed uint64) (tensor.Storage, func(*tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error), error) {
	if f.NoFusedAttention {
		return nil, nil, fmt.Errorf("devicetest.Fake: GATv2Attention without fused attention: %w", tensor.ErrNotOnDevice)
	}
	f.chargeGraph(g, noWeights)
	out, back := f.autograd(func(in []*tensor.Tensor) *tensor.Tensor {
		return nn.GATv2Attention(g, in[0], in[1], in[2], heads, slope, p, tensor.NewRNG(int64(seed)), true)
	}, hs, hd, att)
	return out, func(grad *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error) {
		gs := back(grad)
		return gs[0], gs[1], gs[2], nil
	}, nil
}

// GATv2AttentionOut is GATv2Attention for nn.GATv2OutOps: the caller may
// free the output, and the backward function takes it back. The fused
// kernels read it only through dOut·out per node and head, so the Fake
// checks that the output it is given agrees with the one it made wherever
// the output's gradient is not zero (within float32 rounding of a
// rebuilt value) and returns an error naming the first place it does
// not: a layer that rebuilds the wrong values fails here, as it would
// give wrong gradients on a GPU.
func (f *Fake) GATv2AttentionOut(g *graph.Graph, hs, hd, att *tensor.Tensor, heads int, slope, p float32, seed uint64) (tensor.Storage, func(grad, out *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error), error) {
	s, back, err := f.GATv2Attention(g, hs, hd, att, heads, slope, p, seed)
	if err != nil {
		return nil, nil, err
	}
	want := slices.Clone(s.(*fakeStore).data)
	return s, func(grad, out *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error) {
		if err := f.checkOut("GATv2AttentionOut", want, grad, out); err != nil {
			return nil, nil, nil, err
		}
		return back(grad)
	}, nil
}

// checkOut checks the output a backward function of op was given back
// against want, the one its forward pass made, wherever the output's
// gradient is not zero (within float32 rounding of a rebuilt value;
// under Autocast, within 1e-2 of it: the activation it was rebuilt from
// is rounded to the 16-bit format, and so may the rebuilt value be).
func (f *Fake) checkOut(op string, want []float32, grad, out *tensor.Tensor) error {
	if out == nil || out.Len() != len(want) {
		return fmt.Errorf("devicetest.Fake: %s's backward without the output (%v)", op, out)
	}
	tol := 1e-5
	if out.DType() != tensor.Float32 || tensor.AutocastDType() != tensor.Float32 {
		tol = 1e-2
	}
	gv, ov := f.host(grad).Data(), f.host(out).Data()
	for i, w := range want {
		if gv[i] != 0 && math.Abs(float64(ov[i]-w)) > tol*(1+math.Abs(float64(w))) {
			return fmt.Errorf("devicetest.Fake: %s's backward given output %g at %d where the forward gave %g", op, ov[i], i, w)
		}
	}
	return nil
}

// GATv2AttentionPair is nn.GATv2PairOps' fused attention over hlr =
// x·[W_src W_dst]: GATv2AttentionOut of hlr's two column halves, with
// their gradients returned as one block.
func (f *Fake) GATv2AttentionPair(g *graph.Graph, hlr, att *tensor.Tensor, heads int, slope, p float32, seed uint64) (tensor.Storage, func(grad, out, again *tensor.Tensor, act *backend.OutAct) (tensor.Storage, tensor.Storage, error), error) {
	if f.NoFusedAttention {
		return nil, nil, fmt.Errorf("devicetest.Fake: GATv2AttentionPair without fused attention: %w", tensor.ErrNotOnDevice)
	}
	if hlr.Dims() != 2 || hlr.Size(1)%2 != 0 || att.Len() != hlr.Size(1)/2 {
		return nil, nil, fmt.Errorf("devicetest.Fake: GATv2AttentionPair of %v with att %v", hlr.Shape(), att.Shape())
	}
	hf := hlr.Size(1) / 2
	f.count("GATv2AttentionPair")
	f.chargeGraph(g, noWeights)
	var product *tensor.Tensor // hlr as the forward pass read it (a host copy)
	s, back := f.autograd(func(in []*tensor.Tensor) *tensor.Tensor {
		product = in[0]
		return nn.GATv2Attention(g, in[0].Narrow(1, 0, hf), in[0].Narrow(1, hf, hf), in[1], heads, slope, p, tensor.NewRNG(int64(seed)), true)
	}, hlr, att)
	want := slices.Clone(s.data)
	return s, func(grad, out, again *tensor.Tensor, act *backend.OutAct) (tensor.Storage, tensor.Storage, error) {
		if again != nil {
			// The backward pass reads the recorded product; the one
			// made again must hold the same values, bit for bit.
			f.count("GATv2AttentionPair given its product again")
			if !slices.Equal(f.host(again).Data(), product.Data()) {
				return nil, nil, fmt.Errorf("devicetest.Fake: GATv2AttentionPair's backward given a product %v other than the one its forward pass read", again.Shape())
			}
		}
		if act != nil && out != nil {
			// out is the activation over the output: rebuild it as
			// gnnlib/cuda's destination pass does where it reads it.
			f.count("GATv2AttentionPair from its activation")
			o, err := f.UnbiasAct(out, act.Bias, act.ReLU, act.P)
			if err != nil {
				return nil, nil, err
			}
			out = backend.FromStorage(o, out.Shape()...)
		}
		if err := f.checkOut("GATv2AttentionPair", want, grad, out); err != nil {
			return nil, nil, err
		}
		gs := back(grad)
		return gs[0], gs[1], nil
	}, nil
}

// GATv2PairTakes is nn.GATv2PairOps': every width GATv2AttentionOut
// takes.
func (f *Fake) GATv2PairTakes(hf, heads int) bool { return !f.NoFusedAttention }

// UnbiasAct is nn.GATv2OutOps' UnbiasAct, as gnnlib/cuda's unbias_act
// kernel computes it.
func (f *Fake) UnbiasAct(y, b *tensor.Tensor, relu bool, p float32) (tensor.Storage, error) {
	yv, bv := f.host(y).Data(), f.host(b).Data()
	if y.Dims() != 2 || len(bv) != y.Size(1) {
		return nil, fmt.Errorf("devicetest.Fake: UnbiasAct of %v with a bias of %d", y.Shape(), len(bv))
	}
	out := make([]float32, len(yv))
	for i, v := range yv {
		bb := bv[i%len(bv)]
		switch {
		case !relu && p == 0:
			out[i] = v - bb
		case v != 0:
			out[i] = v*(1-p) - bb
		}
	}
	return f.newStore(out), nil
}

var _ nn.GATv2PairOps = (*Fake)(nil)

func (f *Fake) GATAttention(g *graph.Graph, h, aSrc, aDst *tensor.Tensor, heads int, slope, p float32, seed uint64) (tensor.Storage, func(*tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error), error) {
	if f.NoFusedAttention {
		return nil, nil, fmt.Errorf("devicetest.Fake: GATAttention without fused attention: %w", tensor.ErrNotOnDevice)
	}
	f.chargeGraph(g, noWeights)
	out, back := f.autograd(func(in []*tensor.Tensor) *tensor.Tensor {
		return nn.GATAttention(g, in[0], in[1], in[2], heads, slope, p, tensor.NewRNG(int64(seed)), true)
	}, h, aSrc, aDst)
	return out, func(grad *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error) {
		gs := back(grad)
		return gs[0], gs[1], gs[2], nil
	}, nil
}

func (f *Fake) HeadDot(x, att *tensor.Tensor, heads int) (tensor.Storage, func(*tensor.Tensor) (tensor.Storage, tensor.Storage, error), error) {
	n, hf := x.Size(0), x.Size(1)
	out, back := f.autograd(func(in []*tensor.Tensor) *tensor.Tensor {
		return in[0].Reshape(n, heads, hf/heads).Mul(in[1].Reshape(1, heads, hf/heads)).SumAxis(2, false)
	}, x, att)
	return out, func(grad *tensor.Tensor) (tensor.Storage, tensor.Storage, error) {
		gs := back(grad)
		return gs[0], gs[1], nil
	}, nil
}

func (f *Fake) AdamStep(p, grad, m, v *tensor.Tensor, step, beta1, beta2, eps, sqrtC2, weightDecay, shrink float32, decoupled bool) error {
	pd, gd, md, vd := f.host(p).Data(), f.host(grad).Data(), f.host(m).Data(), f.host(v).Data()
	for j := range pd {
		gj := gd[j]
		if decoupled {
			pd[j] *= shrink
		} else {
			gj += weightDecay * pd[j]
		}
		md[j] = beta1*md[j] + (1-beta1)*gj
		vd[j] = beta2*vd[j] + (1-beta2)*gj*gj
		pd[j] -= step * md[j] / (float32(math.Sqrt(float64(vd[j])))/sqrtC2 + eps)
	}
	return nil
}

func (f *Fake) GraphMaxAggregate(g *graph.Graph, x *tensor.Tensor) (tensor.Storage, func(*tensor.Tensor) (tensor.Storage, error), error) {
	f.chargeGraph(g, noWeights)
	out, back := f.autograd(func(in []*tensor.Tensor) *tensor.Tensor { return nn.MaxAggregate(g, in[0]) }, x)
	return out, func(grad *tensor.Tensor) (tensor.Storage, error) { return back(grad)[0], nil }, nil
}

func (f *Fake) SGDStep(p, grad, buf *tensor.Tensor, lr, momentum, weightDecay float32, started bool) error {
	pd, gd := f.host(p).Data(), f.host(grad).Data()
	var bd []float32
	if buf != nil {
		bd = f.host(buf).Data()
	}
	for j := range pd {
		gj := gd[j] + weightDecay*pd[j]
		if momentum != 0 {
			if started {
				gj += momentum * bd[j]
			}
			bd[j] = gj
		}
		pd[j] -= lr * gj
	}
	return nil
}

func (f *Fake) SumSquares(xs []*tensor.Tensor) (float64, error) {
	var s float64
	for _, x := range xs {
		for _, v := range f.host(x).Data() {
			s += float64(v) * float64(v)
		}
	}
	return s, nil
}

func (f *Fake) LayerNorm(x, gamma, beta *tensor.Tensor, eps float32) (tensor.Storage, func(*tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error), error) {
	out, back := f.autograd(func(in []*tensor.Tensor) *tensor.Tensor {
		l := &nn.LayerNorm{Gamma: in[1], Beta: in[2], Eps: eps}
		return l.Forward(in[0])
	}, x, gamma, beta)
	return out, func(grad *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error) {
		gs := back(grad)
		return gs[0], gs[1], gs[2], nil
	}, nil
}

func (f *Fake) BatchNorm(x, gamma, beta, runMean, runVar *tensor.Tensor, train bool, momentum, eps float32) (tensor.Storage, func(*tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error), error) {
	c := x.Size(1)
	var b *nn.BatchNorm
	switch x.Dims() {
	case 2:
		b = nn.NewBatchNorm1D(c)
	case 4:
		b = nn.NewBatchNorm2D(c)
	default:
		return nil, nil, fmt.Errorf("devicetest.Fake: BatchNorm of %v: %w", x.Shape(), tensor.ErrNotOnDevice)
	}
	// The host layer updates the device's running statistics in place.
	b.RunningMean, b.RunningVar = f.host(runMean), f.host(runVar)
	b.Momentum, b.Eps = momentum, eps
	b.SetTraining(train)
	out, back := f.autograd(func(in []*tensor.Tensor) *tensor.Tensor {
		b.Gamma, b.Beta = in[1], in[2]
		return b.Forward(in[0])
	}, x, gamma, beta)
	return out, func(grad *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error) {
		gs := back(grad)
		return gs[0], gs[1], gs[2], nil
	}, nil
}

var _ backend.GraphBackend = (*Fake)(nil)
