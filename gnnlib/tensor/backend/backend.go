package backend

import (
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/internal/contract"
)

// Backend is the interface every device implements: the tensor ops of
// gnnlib/tensor (see tensor.Backend for each method's contract). It is
// declared in gnnlib/tensor, whose Tensor.To takes it.
type Backend = tensor.Backend

// Storage is a tensor's data in a device's memory.
type Storage = tensor.Storage

// Memory is a device's memory, in bytes (tensor.MemoryOf).
type Memory = tensor.Memory

// MemoryReporter is the optional capability of a Backend that reports its
// memory (tensor.MemoryOf reads it).
type MemoryReporter = tensor.MemoryReporter

// Freer is the optional capability of a Storage that gives its device
// memory back at once (gnnlib/nn frees the intermediates of its fused
// layers through it) instead of when the garbage collector finalises it.
type Freer interface{ Free() }

// GraphOps is the optional capability of a Backend that runs the graph
// layers and optimisers of gnnlib/nn: gnnlib/cuda's device and
// gnnlib/devicetest's Fake implement it. A Backend without it runs those
// layers' tensor ops only where they compose from Backend methods; the
// rest panic with a *tensor.DeviceError wrapping tensor.ErrNotOnDevice.
// Every method gets device tensors and returns new device storage; none
// records autograd (gnnlib/nn does).
type GraphOps interface {
	// GraphSpMM returns A·x over g (Aᵀ·x when transpose is set), with g's
	// edge weights when weighted and ones otherwise. The backend uploads
	// g (and its transpose) on first use and keeps it while g lives
	// (GraphCache).
	GraphSpMM(g *graph.Graph, weighted, transpose bool, x *tensor.Tensor) (Storage, error)
	// GATv2Attention runs the fused attention of nn.GATv2Attention, with
	// attention dropout p (0: none) drawn from seed, and returns its
	// output and a function computing the gradients of hs, hd and att
	// from the output's gradient.
	GATv2Attention(g *graph.Graph, hs, hd, att *tensor.Tensor, heads int, slope, p float32, seed uint64) (out Storage, backward func(grad *tensor.Tensor) (dhs, dhd, datt Storage, err error), err error)
	// GATAttention runs the fused attention of nn.GATAttention, with
	// attention dropout p (0: none) drawn from seed: h [NumSrc, heads·f],
	// aSrc [NumSrc, heads], aDst [NumNodes, heads]; backward returns the
	// gradients of the three.
	GATAttention(g *graph.Graph, h, aSrc, aDst *tensor.Tensor, heads int, slope, p float32, seed uint64) (out Storage, backward func(grad *tensor.Tensor) (dh, dSrc, dDst Storage, err error), err error)
	// HeadDot returns y[r,k] = Σ_j x[r,k,j]·att[k,j] for x [rows,
	// heads·f] and att [heads, f] (GAT's per-node logits) and a function
	// computing the gradients of x and att from y's.
	HeadDot(x, att *tensor.Tensor, heads int) (y Storage, backward func(grad *tensor.Tensor) (dx, datt Storage, err error), err error)
	// GraphMeanSpMM returns the mean of the in-neighbours' rows of x
	// over g, or with transpose its backward pass (MeanAggregate).
	GraphMeanSpMM(g *graph.Graph, transpose bool, x *tensor.Tensor) (Storage, error)
	// AdamStep updates p, m and v in place as Adam.Step does on the CPU:
	// with decoupled, p *= shrink first, else grad += weightDecay·p; then
	// m, v move and p -= step·m/(sqrt(v)/sqrtC2 + eps).
	AdamStep(p, grad, m, v *tensor.Tensor, step, beta1, beta2, eps, sqrtC2, weightDecay, shrink float32, decoupled bool) error
	// GraphMaxAggregate returns the element-wise maximum of the
	// in-neighbours' rows of x over g (MaxAggregate) and a function
	// computing x's gradient from the output's: each element's gradient
	// goes to the neighbour that won it.
	GraphMaxAggregate(g *graph.Graph, x *tensor.Tensor) (out Storage, backward func(grad *tensor.Tensor) (dx Storage, err error), err error)
	// SGDStep updates p in place as SGD.Step does on the CPU: grad +=
	// weightDecay·p; with momentum, grad += momentum·buf once started and
	// buf = grad (buf is nil without momentum); p -= lr·grad.
	SGDStep(p, grad, buf *tensor.Tensor, lr, momentum, weightDecay float32, started bool) error
	// SumSquares returns Σ x² over every value of xs (ClipGradNorm).
	SumSquares(xs []*tensor.Tensor) (float64, error)
	// LayerNorm runs LayerNorm's forward pass over the last axis of x and
	// returns a function computing the gradients of x, gamma and beta.
	LayerNorm(x, gamma, beta *tensor.Tensor, eps float32) (y Storage, backward func(grad *tensor.Tensor) (dx, dgamma, dbeta Storage, err error), err error)
	// BatchNorm runs BatchNorm's forward pass over the channels (axis 1)
	// of x [N, C, ...]: with train, with the batch's statistics, moving
	// runMean and runVar in place by momentum; otherwise with them. It
	// returns a function computing the gradients of x, gamma and beta.
	BatchNorm(x, gamma, beta, runMean, runVar *tensor.Tensor, train bool, momentum, eps float32) (y Storage, backward func(grad *tensor.Tensor) (dx, dgamma, dbeta Storage, err error), err error)
}

// TransformerOps is the optional capability of a Backend that runs
// nn.TransformerAttention fused (gnnlib/cuda's device does): the output,
// with attention dropout p (0: none) drawn from seed, and a function
// computing the gradients of q, k and v from the output's. A device
// without it, or one that returns an error wrapping tensor.ErrNotOnDevice
// for a shape its kernel does not take, runs the op composed from
// GraphOps and tensor ops.
type TransformerOps interface {
	TransformerAttention(g *graph.Graph, q, k, v *tensor.Tensor, heads int, p float32, seed uint64) (out Storage, backward func(grad *tensor.Tensor) (dq, dk, dv Storage, err error), err error)
}

// OutAct describes an activation y = dropout(relu(out + Bias)) over a
// fused op's output out (ReLU when ReLU is set, dropout with probability
// P) that the op's backward function may take in place of out. The op
// then rebuilds out's values where it reads them, as y·(1 − P) − Bias
// where y is not zero and 0 where it is (ReLU or P set), y − Bias
// otherwise, and stores no rebuilt copy. The gradient handed over with y
// must be zero wherever y is (the activation's gradient passed back
// through it), so that the zeros change nothing. gnnlib/nn's GATv2Conv
// hands its fused ReLU and dropout's output to the attention's backward
// pass this way (nn.GATv2PairOps).
type OutAct struct {
	Bias *tensor.Tensor
	ReLU bool
	P    float32
}

// GraphBackend is a Backend with the GraphOps capability.
type GraphBackend interface {
	Backend
	GraphOps
}

// Graph returns b's GraphOps, or false when b has none (or is the CPU).
func Graph(b Backend) (GraphOps, bool) {
	g, ok := b.(GraphOps)
	return g, ok
}

// AutocastFixer is the optional capability of a Backend whose kernels
// follow the calling goroutine's tensor.Autocast scope (gnnlib/cuda's):
// the same device, whose ops take the scope's format to be dt instead
// of looking it up on every call. Looking a scope up walks the calling
// goroutine's stack (a few microseconds), so an op that makes several
// backend calls, in its forward pass and in its backward function,
// looks it up once (FixAutocast). The returned value runs the same
// kernels on the same memory; it stands for the device only as the
// receiver of calls (tensors' storage names the device itself).
type AutocastFixer interface {
	WithAutocast(dt tensor.DType) Backend
}

// FixAutocast returns b with the calling goroutine's Autocast format
// fixed (AutocastFixer), or b itself when it has no such capability,
// and that format. gnnlib/nn's layer ops call it once in their forward
// pass and make their backward functions' calls through the same value,
// which keeps the forward pass's format there as well, as torch.autocast
// runs a backward op in its forward op's type. (Autograd runs the
// backward function of a device op recorded under Autocast in the
// scope's format anyway; the fixed value also keeps float32 when a
// backward pass of ops recorded outside every scope runs inside one.)
func FixAutocast(b GraphBackend) (GraphBackend, tensor.DType) {
	dt := tensor.AutocastDType()
	if f, ok := b.(AutocastFixer); ok {
		if fb, ok := f.WithAutocast(dt).(GraphBackend); ok {
			return fb, dt
		}
	}
	return b, dt
}

// Driver is how one device kind is opened and measured.
type Driver struct {
	// Open opens the kind's default device. It is called at most once per
	// tensor.Device call and should return an error that says why the
	// device is unavailable and how to fix it.
	Open func() (Backend, error)
	// InUse, which may be nil, returns the bytes the kind's open devices
	// hold. It must not open a device, must return an error when none of
	// the kind is open, and should be cheap: gnnlib/prof's memory tracker
	// samples it every few milliseconds (tensor.DeviceMemory).
	InUse func() (uint64, error)
}

// Register makes the device kind name ("cuda") available to
// tensor.Device and its memory to tensor.DeviceMemory. A backend package
// calls it from its init function; a later call for the same name
// replaces the driver's fields that it sets (a nil Open or InUse keeps
// the one registered before).
func Register(name string, d Driver) {
	var open func() (any, error)
	if d.Open != nil {
		open = func() (any, error) {
			b, err := d.Open()
			if b == nil {
				return nil, err // not a nil Backend in a non-nil any
			}
			return b, err
		}
	}
	contract.Register(name, contract.Driver{Open: open, InUse: d.InUse})
}

// The plumbing of gnnlib/tensor, asserted once to its types here: a
// mismatch with tensor's hooks.go panics at init, never in a cell.
var (
	newOp       = contract.NewOp.(func(time.Time, string, int, *tensor.Tensor, []*tensor.Tensor, tensor.BackwardFunc) *tensor.Tensor)
	opStart     = contract.OpStart.(func() time.Time)
	fromStorage = contract.FromStorage.(func(tensor.Storage, ...int) *tensor.Tensor)
	setOpHook   = contract.SetOpHook.(func(func(tensor.OpEvent)) func())
	ownsGrad    = contract.OwnsGrad.(func(*tensor.Tensor) bool)
)

// OpStart returns the current time when an op hook is installed and the
// zero time otherwise; pass it to NewOpSince so the hook sees the op's
// duration.
func OpStart() time.Time { return opStart() }

// NewOpSince is tensor.NewOp for an op that started at start (from
// OpStart), so that the op hook can time it: it records out as the result
// of op name over inputs, with backward its gradient function.
func NewOpSince(start time.Time, name string, out *tensor.Tensor, inputs []*tensor.Tensor, backward tensor.BackwardFunc) *tensor.Tensor {
	return newOp(start, name, 0, out, inputs, backward)
}

// NewGraphOpSince is NewOpSince for an op over the edges of a graph (an
// aggregation, an SpMM), whose work grows with the edges rather than with
// its tensors' shapes: the op hook's events, forward and backward, carry
// edges, so that a profiler can count FLOPs and bytes.
func NewGraphOpSince(start time.Time, name string, edges int, out *tensor.Tensor, inputs []*tensor.Tensor, backward tensor.BackwardFunc) *tensor.Tensor {
	return newOp(start, name, edges, out, inputs, backward)
}

// OwnsGrad reports whether g, the gradient a device op's backward
// function was called with (NewOpSince, NewGraphOpSince), is that
// function's alone while it runs: no other gradient accumulator, tensor
// of the recorded graph or caller holds it, so the function may free its
// storage as soon as it has read it (gnnlib/nn's fused layers do, so
// that a layer's pass holds no more gradients at once than the separate
// ops it stands for); the backward pass does not read it afterwards.
// Always false with tensor.ReleaseSpentActivations off.
func OwnsGrad(g *tensor.Tensor) bool { return ownsGrad(g) }

// FromStorage returns a tensor of the given shape over s (no copy).
// Backends and gnnlib/nn use it to hand results back; it does not record
// autograd.
func FromStorage(s Storage, shape ...int) *tensor.Tensor { return fromStorage(s, shape...) }

// SetOpHook installs h to be called after every op's forward and backward
// pass (nil removes it) and returns a function restoring the previous
// hook. With no hook the cost per op is one atomic load. The hook runs on
// the goroutine that ran the op and must be fast. gnnlib/prof's op
// profiler installs one.
func SetOpHook(h func(tensor.OpEvent)) (restore func()) { return setOpHook(h) }
