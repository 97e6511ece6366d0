package nn

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/gnnlab/gnnlab/gnnlib/internal/parallel"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// Linear is a dense layer y = x·W + B with W of shape [in, out] and B of
// shape [out] (nil without bias). x may be sparse (a CSR tensor), which
// makes the product cheap on bag-of-words features.
type Linear struct {
	Mode
	W, B *tensor.Tensor
}

// NewLinear returns a Linear layer initialised as PyTorch's: W and B
// uniform in ±1/sqrt(in). Use Reset for Xavier or He initialisation.
func NewLinear(in, out int) *Linear {
	l := &Linear{W: newWeight(LeCunUniform, in, out), B: param(tensor.Zeros(out))}
	uniformWithFan(l.B, in)
	return l
}

// Reset re-initialises W with init and sets B to zero; it returns l, so
// that nn.NewLinear(16, 7).Reset(nn.XavierUniform) reads as one step.
func (l *Linear) Reset(init InitFunc) *Linear {
	init(l.W)
	if l.B != nil {
		clear(l.B.Data())
	}
	return l
}

// NoBias removes the bias and returns l.
func (l *Linear) NoBias() *Linear {
	l.B = nil
	return l
}

// Forward returns x·W + B.
func (l *Linear) Forward(x *tensor.Tensor) *tensor.Tensor {
	y := x.MatMul(l.W)
	if l.B != nil {
		y = y.Add(l.B)
	}
	return y
}

// Params returns W and B (if any).
func (l *Linear) Params() []*tensor.Tensor {
	if l.B == nil {
		return []*tensor.Tensor{l.W}
	}
	return []*tensor.Tensor{l.W, l.B}
}

func (l *Linear) String() string {
	s := l.W.Shape()
	return fmt.Sprintf("Linear(%d, %d, bias=%t)", s[0], s[1], l.B != nil)
}

// Func is a parameter-free Layer made from a function, such as
// nn.Func(func(x *tensor.Tensor) *tensor.Tensor { return x.Square() }).
type Func struct {
	Mode
	NoParams
	F func(x *tensor.Tensor) *tensor.Tensor
}

// NewFunc returns a Layer applying f.
func NewFunc(f func(x *tensor.Tensor) *tensor.Tensor) *Func { return &Func{F: f} }

// Forward returns F(x).
func (f *Func) Forward(x *tensor.Tensor) *tensor.Tensor { return f.F(x) }

// Activation is a parameter-free element-wise or row-wise layer; the
// constructors ReLU, LeakyReLU, ELU, Sigmoid, Tanh, GELU, Softmax and
// LogSoftmax return one.
type Activation struct {
	Mode
	NoParams
	name string
	f    func(x *tensor.Tensor) *tensor.Tensor
	relu bool // Sequential fuses it with a preceding Conv2D
}

// Forward applies the activation.
func (a *Activation) Forward(x *tensor.Tensor) *tensor.Tensor { return a.f(x) }

func (a *Activation) String() string { return a.name }

// ReLU returns a layer computing max(x, 0).
func ReLU() *Activation {
	return &Activation{name: "ReLU()", f: (*tensor.Tensor).ReLU, relu: true}
}

// LeakyReLU returns a layer computing x for x > 0 and slope·x otherwise.
func LeakyReLU(slope float32) *Activation {
	return &Activation{name: fmt.Sprintf("LeakyReLU(%g)", slope), f: func(x *tensor.Tensor) *tensor.Tensor { return x.LeakyReLU(slope) }}
}

// ELU returns a layer computing x for x > 0 and alpha·(exp(x)−1) otherwise.
func ELU(alpha float32) *Activation {
	return &Activation{name: fmt.Sprintf("ELU(%g)", alpha), f: func(x *tensor.Tensor) *tensor.Tensor { return x.ELU(alpha) }}
}

// Sigmoid returns a layer computing 1/(1+exp(−x)).
func Sigmoid() *Activation {
	return &Activation{name: "Sigmoid()", f: (*tensor.Tensor).Sigmoid}
}

// Tanh returns a layer computing tanh(x).
func Tanh() *Activation { return &Activation{name: "Tanh()", f: (*tensor.Tensor).Tanh} }

// GELU returns a layer computing the GELU (tanh approximation).
func GELU() *Activation { return &Activation{name: "GELU()", f: (*tensor.Tensor).GELU} }

// Softmax returns a layer computing the softmax along axis.
func Softmax(axis int) *Activation {
	return &Activation{name: fmt.Sprintf("Softmax(%d)", axis), f: func(x *tensor.Tensor) *tensor.Tensor { return x.Softmax(axis) }}
}

// LogSoftmax returns a layer computing the log-softmax along axis.
func LogSoftmax(axis int) *Activation {
	return &Activation{name: fmt.Sprintf("LogSoftmax(%d)", axis), f: func(x *tensor.Tensor) *tensor.Tensor { return x.LogSoftmax(axis) }}
}

// Dropout zeroes each input element with probability P while training and
// scales the others by 1/(1−P); in evaluation mode it passes x through. On
// a sparse input it drops stored entries only (the zeros stay zero, as
// dense dropout would leave them) and keeps the result sparse.
type Dropout struct {
	Mode
	NoParams
	P   float32
	rng *tensor.RNG
}

// NewDropout returns a Dropout layer with its own generator seeded from
// the package's source.
func NewDropout(p float32) *Dropout {
	if p < 0 || p >= 1 {
		panic(fmt.Sprintf("nn: NewDropout(%g): p must be in [0, 1)", p))
	}
	return &Dropout{P: p, rng: newLayerRNG()}
}

// Forward applies dropout in training mode.
func (d *Dropout) Forward(x *tensor.Tensor) *tensor.Tensor {
	return dropout(x, d.P, d.rng, d.Training())
}

func (d *Dropout) String() string { return fmt.Sprintf("Dropout(%g)", d.P) }

// dropout is Tensor.Dropout with a faster mask (dropMask), extended to
// sparse tensors, whose gradient is not needed (they are data).
func dropout(x *tensor.Tensor, p float32, r *tensor.RNG, training bool) *tensor.Tensor {
	if !training || p == 0 {
		return x
	}
	if x.IsOnDevice() { // the mask is drawn on the device
		return x.Dropout(p, r, true)
	}
	if x.IsSparse() {
		indptr, indices, values := x.CSR()
		mask := dropMask(len(values), p, r)
		for i, val := range values {
			mask[i] *= val
		}
		return tensor.SparseFromCSR(x.Size(0), x.Size(1), indptr, indices, mask)
	}
	start := backend.OpStart()
	xd := x.Data()
	mask := dropMask(len(xd), p, r)
	out := make([]float32, len(xd))
	for i, m := range mask {
		out[i] = xd[i] * m
	}
	return backend.NewOpSince(start, "Dropout", tensor.Wrap(out, x.Shape()...), []*tensor.Tensor{x}, func(grad *tensor.Tensor) []*tensor.Tensor {
		g := grad.Data()
		dx := make([]float32, len(g))
		for i, m := range mask {
			dx[i] = g[i] * m
		}
		return []*tensor.Tensor{tensor.Wrap(dx, x.Shape()...)}
	})
}

// dropChunk is the number of mask entries drawn from one generator.
const dropChunk = 1 << 15

// dropMask returns n mask values, each 0 with probability p and 1/(1−p)
// otherwise. It takes one number from r and expands it with PCG
// generators, one per chunk of dropChunk entries and four 16-bit draws per
// 64-bit number, filled in parallel: a mask for a 100k×128 feature matrix
// costs milliseconds instead of one call to r per entry. p is rounded to a
// multiple of 1/65536. The mask depends only on r's state, n and p, not
// on the thread count.
func dropMask(n int, p float32, r *tensor.RNG) []float32 {
	if p < 0 || p >= 1 {
		panic(fmt.Sprintf("nn: dropout probability %g not in [0, 1)", p))
	}
	seed := uint64(r.Float64() * (1 << 53))
	thr := uint64(float64(p)*65536 + 0.5)
	scale := 1 / (1 - p)
	mask := make([]float32, n)
	chunks := (n + dropChunk - 1) / dropChunk
	fill := func(c int) {
		src := rand.NewPCG(seed, uint64(c))
		m := mask[c*dropChunk : min((c+1)*dropChunk, n)]
		for i := 0; i < len(m); i += 4 {
			u := src.Uint64()
			for lane := 0; lane < 4 && i+lane < len(m); lane++ {
				if (u>>(16*lane))&0xffff >= thr {
					m[i+lane] = scale
				}
			}
		}
	}
	parallel.Steal(chunks, fill)
	return mask
}

// Flatten reshapes [N, ...] to [N, rest].
type Flatten struct {
	Mode
	NoParams
}

// NewFlatten returns a Flatten layer.
func NewFlatten() *Flatten { return &Flatten{} }

// Forward flattens all axes after the first.
func (*Flatten) Forward(x *tensor.Tensor) *tensor.Tensor { return x.FlattenFrom(1) }

func (*Flatten) String() string { return "Flatten()" }

// Sequential applies Layers in order. Its Params are its layers' Params in
// order, and SetTraining reaches every layer.
type Sequential struct {
	Mode
	Layers []Layer
}

// NewSequential returns a Sequential of the given layers.
func NewSequential(layers ...Layer) *Sequential {
	return &Sequential{Layers: layers}
}

// Add appends layers and returns s.
func (s *Sequential) Add(layers ...Layer) *Sequential {
	s.Layers = append(s.Layers, layers...)
	return s
}

// Append appends one layer and returns s. Unlike Add it is not variadic,
// which matters in notebooks: the interpreter (yaegi v0.16.1) does not
// convert a cell's own type to Layer when passing it in a variadic call, so
// write model.Append(myLayer) or convert first (var l nn.Layer = myLayer).
func (s *Sequential) Append(l Layer) *Sequential {
	s.Layers = append(s.Layers, l)
	return s
}

// Forward applies the layers in order. A Conv2D followed by a ReLU runs
// as one fused op (tensor.Conv2DReLU), with the same result.
func (s *Sequential) Forward(x *tensor.Tensor) *tensor.Tensor {
	for i := 0; i < len(s.Layers); i++ {
		if c, ok := s.Layers[i].(*Conv2D); ok && i+1 < len(s.Layers) && isReLU(s.Layers[i+1]) {
			x = tensor.Conv2DReLU(x, c.W, c.B, c.Stride, c.Padding)
			i++
			continue
		}
		x = s.Layers[i].Forward(x)
	}
	return x
}

// isReLU reports whether l is the layer ReLU returns.
func isReLU(l Layer) bool {
	a, ok := l.(*Activation)
	return ok && a.relu
}

// Params returns the layers' parameters in order.
func (s *Sequential) Params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, l := range s.Layers {
		ps = append(ps, l.Params()...)
	}
	return ps
}

// SetTraining sets the mode of s and of every layer.
func (s *Sequential) SetTraining(on bool) {
	s.Mode.SetTraining(on)
	for _, l := range s.Layers {
		l.SetTraining(on)
	}
}

// Train switches s and its layers to training mode.
func (s *Sequential) Train() { s.SetTraining(true) }

// Eval switches s and its layers to evaluation mode.
func (s *Sequential) Eval() { s.SetTraining(false) }

func (s *Sequential) String() string {
	var b strings.Builder
	b.WriteString("Sequential(\n")
	for i, l := range s.Layers {
		fmt.Fprintf(&b, "  (%d) %v\n", i, l)
	}
	b.WriteString(")")
	return b.String()
}

// Conv2D is a 2-D convolution over NCHW batches with a weight
// [out, in, k, k], a bias [out], one stride and zero padding.
type Conv2D struct {
	Mode
	W, B            *tensor.Tensor
	Stride, Padding int
}

// NewConv2D returns a convolution from in to out channels with a k×k
// kernel, initialised as PyTorch's Conv2d.
func NewConv2D(in, out, k, stride, padding int) *Conv2D {
	c := &Conv2D{W: newWeight(LeCunUniform, out, in, k, k), B: param(tensor.Zeros(out)), Stride: stride, Padding: padding}
	uniformWithFan(c.B, in*k*k)
	return c
}

// Reset re-initialises W with init and zeroes B; it returns c.
func (c *Conv2D) Reset(init InitFunc) *Conv2D {
	init(c.W)
	if c.B != nil {
		clear(c.B.Data())
	}
	return c
}

// Forward convolves x [N, in, H, W].
func (c *Conv2D) Forward(x *tensor.Tensor) *tensor.Tensor {
	return tensor.Conv2D(x, c.W, c.B, c.Stride, c.Padding)
}

// Params returns W and B (if any).
func (c *Conv2D) Params() []*tensor.Tensor {
	if c.B == nil {
		return []*tensor.Tensor{c.W}
	}
	return []*tensor.Tensor{c.W, c.B}
}

func (c *Conv2D) String() string {
	s := c.W.Shape()
	return fmt.Sprintf("Conv2D(%d, %d, kernel=%d, stride=%d, padding=%d)", s[1], s[0], s[2], c.Stride, c.Padding)
}

// Pool2D is a max or average pooling layer over NCHW batches.
type Pool2D struct {
	Mode
	NoParams
	Kernel, Stride int
	max            bool
}

// MaxPool2D returns a max-pooling layer (stride 0 means stride = kernel).
func MaxPool2D(kernel, stride int) *Pool2D {
	if stride == 0 {
		stride = kernel
	}
	return &Pool2D{Kernel: kernel, Stride: stride, max: true}
}

// AvgPool2D returns an average-pooling layer (stride 0 means stride =
// kernel).
func AvgPool2D(kernel, stride int) *Pool2D {
	if stride == 0 {
		stride = kernel
	}
	return &Pool2D{Kernel: kernel, Stride: stride}
}

// Forward pools x [N, C, H, W].
func (p *Pool2D) Forward(x *tensor.Tensor) *tensor.Tensor {
	if p.max {
		return x.MaxPool2D(p.Kernel, p.Stride)
	}
	return x.AvgPool2D(p.Kernel, p.Stride)
}

func (p *Pool2D) String() string {
	kind := "Avg"
	if p.max {
		kind = "Max"
	}
	return fmt.Sprintf("%sPool2D(%d, stride=%d)", kind, p.Kernel, p.Stride)
}
