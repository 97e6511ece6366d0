package tensor

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend/opcode"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/internal/contract"
)

// Storage is a tensor's data held in a device's memory. A Backend creates
// it; the tensor keeps the shape. Several tensors may share one Storage
// (Reshape and Detach make views).
type Storage interface {
	// Backend returns the device that holds the data.
	Backend() Backend
}

// Backend is a compute device that tensors can move to with To. The
// package knows no device of its own: a backend package (gnnlib/cuda,
// built with -tags cuda) implements Backend and registers it with
// backend.Register (gnnlib/tensor/backend, the device contract, which
// also holds the optional capabilities, the op codes and the plumbing a
// backend calls), so that this package never depends on it.
//
// Ops of this package run on a Backend when their operands live there, and
// record autograd on the same tape as CPU ops. Every method gets device
// tensors (t.Storage() non-nil) and returns new Storage for a result whose
// shape the caller knows; none of them records autograd. An error wrapping
// ErrNotOnDevice means the backend has no version of the op.
type Backend interface {
	// String names the device, e.g. "cuda:0 (NVIDIA H200, sm_90)".
	String() string
	// Upload copies row-major host data of the given shape to the device.
	Upload(data []float32, shape []int) (Storage, error)
	// Download copies t's data into dst (len(dst) == t.Len()).
	Download(dst []float32, t *Tensor) error
	// Copy returns a copy of t's data.
	Copy(t *Tensor) (Storage, error)
	// AddTo adds src to dst in place (same length).
	AddTo(dst, src *Tensor) error
	// Scale returns n values (x[i] or 1)·(s[0] or 1)·k, where x and s may
	// be nil: MulScalar, Full and the gradient of Sum in one method.
	Scale(n int, x, s *Tensor, k float32) (Storage, error)
	// MatMul returns op(a)·op(b) for 2-D a and b, op transposing when
	// transA or transB is set (never both).
	MatMul(a, b *Tensor, transA, transB bool) (Storage, error)
	// Binary returns a ∘ b for op BinaryAdd, BinarySub, BinaryMul or
	// BinaryDiv, where b has a's length, is one row broadcast over a's
	// rows (len(b) == last axis) or is one value broadcast over a.
	Binary(op opcode.BinaryOp, a, b *Tensor) (Storage, error)
	// Map returns op(x) element-wise for op one of the backend.MapOp codes
	// (MapReLU, MapLeakyReLU with p the slope, MapELU with p alpha,
	// MapAddScalar with p the scalar, MapPow with p the exponent, ...).
	Map(op opcode.MapOp, x *Tensor, p float32) (Storage, error)
	// MapGrad returns g·op'(x) given x and y = op(x).
	MapGrad(op opcode.MapOp, g, x, y *Tensor, p float32) (Storage, error)
	// ColSum sums x over all axes but the last (a bias gradient).
	ColSum(x *Tensor) (Storage, error)
	// Sum returns the sum of all elements as one value.
	Sum(x *Tensor) (Storage, error)
	// Dropout zeroes each element with probability p and scales the rest
	// by 1/(1-p), the mask a function of (seed, index) only, so that
	// DropoutGrad recomputes it instead of storing it.
	Dropout(x *Tensor, p float32, seed uint64) (Storage, error)
	DropoutGrad(g *Tensor, p float32, seed uint64) (Storage, error)
	// CrossEntropy returns the mean cross-entropy of logits [N, C] over
	// rows (nil: all; no duplicates) and its gradient for a unit upstream
	// gradient, fused in one pass.
	CrossEntropy(logits *Tensor, labels, rows []int) (loss, grad Storage, err error)

	// The ops along an axis get a valid, non-negative axis.

	// SumAxis returns x summed over axis and multiplied by scale (SumAxis,
	// MeanAxis): x's shape without axis.
	SumAxis(x *Tensor, axis int, scale float32) (Storage, error)
	// ExpandAxis returns g, of shape without axis, repeated shape[axis]
	// times along axis and multiplied by scale: SumAxis's adjoint.
	ExpandAxis(g *Tensor, shape []int, axis int, scale float32) (Storage, error)
	// Softmax returns the softmax of x along axis, or with log the
	// log-softmax, with the maximum subtracted first.
	Softmax(x *Tensor, axis int, log bool) (Storage, error)
	// SoftmaxGrad returns the gradient of Softmax's input from its output
	// y and the output's gradient g.
	SoftmaxGrad(g, y *Tensor, axis int, log bool) (Storage, error)
	// ArgReduce returns, in host memory, the index of the first maximum
	// (wantMax) or minimum along a non-empty axis of every slice, in
	// row-major order of the other axes (ArgMax, ArgMin).
	ArgReduce(x *Tensor, axis int, wantMax bool) ([]int, error)
	// Gather returns the rows (slices along axis 0) idx of x, in order
	// and possibly repeated (IndexSelect).
	Gather(x *Tensor, idx []int) (Storage, error)
	// ScatterAdd returns n rows, row r the sum of the rows src[i] with
	// idx[i] == r: Gather's adjoint (ScatterAddRows, IndexAdd).
	ScatterAdd(src *Tensor, idx []int, n int) (Storage, error)
	// Concat joins xs, whose other axes match, along axis.
	Concat(axis int, xs []*Tensor) (Storage, error)
	// Narrow returns the slice [start, start+length) of x along axis.
	Narrow(x *Tensor, axis, start, length int) (Storage, error)
	// Loss returns the mean of an element-wise loss of pred against a
	// target of its shape, op LossMSE (squared error) or LossBCELogits
	// (binary cross-entropy of sigmoid(pred), computed from the logits),
	// and its gradient with respect to pred for a unit upstream gradient.
	Loss(op opcode.LossOp, pred, target *Tensor) (loss, grad Storage, err error)
	// NLL returns the mean negative log-likelihood of log-probabilities
	// logp [N, C] at labels over rows (nil: all; a repeated row counts
	// again) and its gradient for a unit upstream gradient.
	NLL(logp *Tensor, labels, rows []int) (loss, grad Storage, err error)
	// Permute returns x with its axes reordered: the result's axis i is
	// x's axis perm[i] (Permute, Transpose).
	Permute(x *Tensor, perm []int) (Storage, error)

	// The image ops take NCHW images x [N, C, H, W].

	// Im2Col returns the receptive fields of kh×kw windows moved by
	// stride over x zero-padded by padding, one row per output pixel:
	// [N·OH·OW, C·KH·KW], row (n·OH + oy)·OW + ox holding x[n, c,
	// oy·stride−padding+i, ox·stride−padding+j] at column (c·KH + i)·KW
	// + j (0 in the padding), so that Conv2D is a product with the weight.
	Im2Col(x *Tensor, kh, kw, stride, padding int) (Storage, error)
	// Col2Im adds the rows of cols back into an image of the given shape
	// [N, C, H, W]: Im2Col's adjoint.
	Col2Im(cols *Tensor, shape []int, kh, kw, stride, padding int) (Storage, error)
	// Pool2D returns the maximum (op PoolMax) or mean (PoolAvg) over the
	// kernel×kernel windows of x moved by stride, [N, C, OH, OW].
	Pool2D(op opcode.PoolOp, x *Tensor, kernel, stride int) (Storage, error)
	// Pool2DGrad returns the gradient of Pool2D's input x from the
	// output's gradient g; for PoolMax, all of a window's goes to its
	// first maximum in row-major order.
	Pool2DGrad(op opcode.PoolOp, g, x *Tensor, kernel, stride int) (Storage, error)
}

// ErrNotOnDevice is wrapped by the panic value of an op that has no version
// for the device its operand lives on. Move the operand with t.CPU().
var ErrNotOnDevice = errors.New("tensor: op not available on the device yet")

// DeviceError is the value ops panic with when a device cannot run them:
// the op has no device version (Err wraps ErrNotOnDevice), the operands
// live on different devices, or the device failed (out of memory). The
// notebook session reports it like a ShapeError. Recover it with
// errors.As.
type DeviceError struct {
	Op     string // the op, e.g. "Sigmoid" or "Conv2D"
	Device string // the device, e.g. "cuda:0 (NVIDIA H200, sm_90)"
	Err    error
}

func (e *DeviceError) Error() string {
	if errors.Is(e.Err, ErrNotOnDevice) {
		// Keep the backend's reason (a kernel's width limit, say), without
		// repeating ErrNotOnDevice's own text at its end.
		why := ""
		if e.Err != ErrNotOnDevice {
			why = " (" + strings.TrimSuffix(e.Err.Error(), ": "+ErrNotOnDevice.Error()) + ")"
		}
		return fmt.Sprintf("tensor: %s is not available on %s yet%s; move its operands to the CPU with x.CPU() first", e.Op, e.Device, why)
	}
	return fmt.Sprintf("tensor: %s on %s: %v", e.Op, e.Device, e.Err)
}

func (e *DeviceError) Unwrap() error { return e.Err }

func deviceName(b Backend) string {
	if b == nil {
		return "the CPU"
	}
	return b.String()
}

// devicePanic panics with a *DeviceError for op on b.
func devicePanic(op string, b Backend, err error) {
	panic(&DeviceError{Op: op, Device: deviceName(b), Err: err})
}

// notOnDevice panics because op has no version for t's device.
func (t *Tensor) notOnDevice(op string) {
	devicePanic(op, t.dev.Backend(), ErrNotOnDevice)
}

// ErrNoBackend is wrapped by the error Device returns for a device kind
// that no package registered.
var ErrNoBackend = errors.New("tensor: no such device backend")

// Device opens the device kind registered under name, e.g.
// tensor.Device("cuda"). "cpu" returns a nil Backend, which To treats as
// the CPU. For "cuda" in a binary built without -tags cuda, the error says
// to rebuild; on a machine without a GPU, what the driver reported.
func Device(name string) (Backend, error) {
	if name == "cpu" {
		return nil, nil
	}
	d, ok, known := contract.Lookup(name)
	if !ok {
		if name == "cuda" {
			return nil, fmt.Errorf("%w: %q: this binary was built without CUDA support; rebuild with -tags cuda (make cuda) and import gnnlib/cuda", ErrNoBackend, name)
		}
		return nil, fmt.Errorf("%w: %q (registered: cpu %v)", ErrNoBackend, name, known)
	}
	b, err := d.Open()
	if err != nil {
		return nil, err
	}
	be, ok := b.(Backend)
	if !ok {
		return nil, fmt.Errorf("tensor: device kind %q opened a %T, not a Backend", name, b)
	}
	return be, nil
}

// fromStorage returns a tensor of the given shape over s (no copy).
func fromStorage(s Storage, shape ...int) *Tensor {
	checkShape("FromStorage", shape)
	return &Tensor{dev: s, shape: cloneInts(shape)}
}

// Storage returns t's device data, or nil for a tensor in host memory.
func (t *Tensor) Storage() Storage { return t.dev }

// Device returns the device t lives on, or nil on the CPU.
func (t *Tensor) Device() Backend {
	if t.dev == nil {
		return nil
	}
	return t.dev.Backend()
}

// IsOnDevice reports whether t lives in a device's memory.
func (t *Tensor) IsOnDevice() bool { return t.dev != nil }

// To returns t on dev (nil: the CPU): t itself when it is there already,
// else a copy that records the move for autograd, so that gradients flow
// back to where t lives. A sparse tensor is densified on the way to a
// device. It panics with a *DeviceError when the copy fails.
func (t *Tensor) To(dev Backend) *Tensor {
	if t.Device() == dev {
		return t
	}
	start := opStart()
	out := t.moved(dev)
	return newOpSince(start, "To", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{g.moved(t.Device())}
	})
}

// CPU returns t in host memory: t itself when it is there, else a copy
// (differentiable, like To(nil)).
func (t *Tensor) CPU() *Tensor { return t.To(nil) }

// moved copies t's values to dev without autograd.
func (t *Tensor) moved(dev Backend) *Tensor {
	if dev == nil {
		out := newDense(t.shape)
		if err := t.dev.Backend().Download(out.data, t); err != nil {
			devicePanic("To", t.dev.Backend(), err)
		}
		return out
	}
	host := t
	if t.dev != nil {
		host = t.moved(nil)
	}
	s, err := dev.Upload(host.dense().data, t.shape)
	if err != nil {
		devicePanic("To", dev, err)
	}
	return &Tensor{dev: s, shape: cloneInts(t.shape)}
}

// MoveTo moves t's data to dev (nil: the CPU) in place, keeping t's
// identity, which is how a model's parameters move (nn.To): the layers
// and an optimiser built afterwards see the moved tensors. It drops t's
// gradient and must be called on leaves only.
func (t *Tensor) MoveTo(dev Backend) {
	if t.node != nil {
		panic(&DeviceError{Op: "MoveTo", Device: deviceName(dev), Err: errors.New("not a leaf tensor (use To)")})
	}
	if t.Device() == dev {
		return
	}
	m := t.moved(dev)
	t.data, t.dev, t.sp, t.grad = m.data, m.dev, nil, nil
}

// backendOf returns the device both operands live on, panicking for op if
// they live on different ones.
func backendOf(op string, a, b *Tensor) Backend {
	da, db := a.Device(), b.Device()
	if da != db {
		panic(&DeviceError{Op: op, Device: deviceName(da), Err: fmt.Errorf("operands on different devices (%s and %s); move one with To", deviceName(da), deviceName(db))})
	}
	return da
}

// devResult wraps a backend result, panicking on its error.
func devResult(op string, b Backend, s Storage, err error, shape []int) *Tensor {
	if err != nil {
		devicePanic(op, b, err)
	}
	return &Tensor{dev: s, shape: cloneInts(shape)}
}

// deviceMatMul is MatMul for 2-D device tensors.
func deviceMatMul(t, u *Tensor) *Tensor {
	start := opStart()
	b := backendOf("MatMul", t, u)
	if u.sp != nil || len(t.shape) != 2 || len(u.shape) != 2 {
		t.notOnDevice("MatMul (other than 2-D×2-D dense)")
	}
	m, k, n := t.shape[0], t.shape[1], u.shape[1]
	if u.shape[0] != k {
		panic(&ShapeError{Op: "MatMul", A: cloneInts(t.shape), B: cloneInts(u.shape)})
	}
	s, err := b.MatMul(t, u, false, false)
	out := devResult("MatMul", b, s, err, []int{m, n})
	return newOpSince(start, "MatMul", out, []*Tensor{t, u}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if t.RequiresGrad() { // dA = G·Bᵀ
			s, err := b.MatMul(g, u, false, true)
			ga = devResult("MatMul backward", b, s, err, t.shape)
		}
		if u.RequiresGrad() { // dB = Aᵀ·G
			s, err := b.MatMul(t, g, true, false)
			gb = devResult("MatMul backward", b, s, err, u.shape)
		}
		return []*Tensor{ga, gb}
	})
}

// deviceBinary is Add, Sub and Mul on a device: same shapes, or b one row
// broadcast over a (the bias case); a row on the left of Add and Mul is
// swapped to the right.
func deviceBinary(op binOp, a, b *Tensor) *Tensor {
	start := opStart()
	name := binNames[op]
	be := backendOf(name, a, b)
	if a.sp != nil || b.sp != nil {
		panic(fmt.Errorf("tensor: %s: %w", name, ErrSparse))
	}
	shape := broadcastShape(name, a.shape, b.shape)
	if !slices.Equal(a.shape, shape) && (op == opAdd || op == opMul) && slices.Equal(b.shape, shape) {
		a, b = b, a
	}
	row := !slices.Equal(b.shape, shape)
	scalar := row && b.Len() == 1
	if !slices.Equal(a.shape, shape) || (row && !scalar && (len(shape) == 0 || !isSuffixRepeat(b.shape, shape) || b.Len() != shape[len(shape)-1])) {
		a.notOnDevice(name + " (other than same shapes, a broadcast row or one value)")
	}
	key := [...]opcode.BinaryOp{opAdd: opcode.BinaryAdd, opSub: opcode.BinarySub, opMul: opcode.BinaryMul, opDiv: opcode.BinaryDiv}[op]
	s, err := be.Binary(key, a, b)
	out := devResult(name, be, s, err, shape)
	bin := func(op opcode.BinaryOp, x, y *Tensor) *Tensor {
		s, err := be.Binary(op, x, y)
		return devResult(name+" backward", be, s, err, x.shape)
	}
	// The backward pass reads a only for Mul's gradient of b, b for
	// Mul's and Div's gradient of a, out for Div's of b: the closure
	// keeps no other operand, so that the tape does not hold its memory.
	aNeeds, bNeeds, bShape := needsGrad(a), needsGrad(b), b.shape
	var ka, kb, kout *Tensor
	switch op {
	case opMul:
		ka, kb = a, b
	case opDiv:
		kb, kout = b, out
	}
	return newOpSince(start, name, out, []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		var ga, gb *Tensor
		if aNeeds() {
			switch op {
			case opMul:
				ga = bin(opcode.BinaryMul, g, kb)
			case opDiv:
				ga = bin(opcode.BinaryDiv, g, kb)
			default:
				ga = g
			}
		}
		if bNeeds() {
			switch op {
			case opMul:
				gb = bin(opcode.BinaryMul, g, ka)
			case opDiv: // d(a/b)/db = -out/b, negated below
				gb = bin(opcode.BinaryDiv, bin(opcode.BinaryMul, g, kout), kb)
			default:
				gb = g
			}
			switch {
			case scalar:
				s, err := be.Sum(gb)
				gb = devResult(name+" backward", be, s, err, bShape)
			case row:
				s, err := be.ColSum(gb)
				gb = devResult(name+" backward", be, s, err, bShape)
			}
			if op == opSub || op == opDiv {
				s, err := be.Scale(gb.Len(), gb, nil, -1)
				gb = devResult(name+" backward", be, s, err, bShape)
			}
		}
		return []*Tensor{ga, gb}
	})
}

// needsGrad returns a function reporting whether t requires gradients
// when a backward pass runs, without keeping the output of a recorded op
// (and its memory) alive: such a tensor always does.
func needsGrad(t *Tensor) func() bool {
	if t.node != nil {
		return func() bool { return true }
	}
	return t.RequiresGrad
}

// deviceUnary is an element-wise op on a device; key is its code
// (MapAddScalar or one of deviceMaps), ok false when it has none.
func deviceUnary(name string, key opcode.MapOp, ok bool, t *Tensor, p float32) *Tensor {
	start := opStart()
	be := t.dev.Backend()
	if !ok {
		t.notOnDevice(name)
	}
	s, err := be.Map(key, t, p)
	out := devResult(name, be, s, err, t.shape)
	if key == opcode.MapAddScalar {
		return newOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor { return []*Tensor{g} })
	}
	x, shape := t, t.shape
	if key == opcode.MapReLU {
		// ReLU's derivative at x is 1 where its output is positive, as
		// where x is: keep the output only, so that the tape does not
		// hold the input's memory.
		x = out
	}
	return newOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		s, err := be.MapGrad(key, g, x, out, p)
		return []*Tensor{devResult(name+" backward", be, s, err, shape)}
	})
}

// deviceScale is MulScalar (and Neg) on a device.
func deviceScale(name string, t *Tensor, k float32) *Tensor {
	start := opStart()
	be := t.dev.Backend()
	s, err := be.Scale(t.Len(), t, nil, k)
	out := devResult(name, be, s, err, t.shape)
	return newOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		s, err := be.Scale(g.Len(), g, nil, k)
		return []*Tensor{devResult(name+" backward", be, s, err, t.shape)}
	})
}

// deviceSum is Sum (scale 1) and Mean (scale 1/n) on a device.
func deviceSum(name string, t *Tensor, scale float32) *Tensor {
	start := opStart()
	be := t.dev.Backend()
	s, err := be.Sum(t)
	out := devResult(name, be, s, err, nil)
	if scale != 1 {
		s, err := be.Scale(1, out, nil, scale)
		out = devResult(name, be, s, err, nil)
	}
	out.shape = []int{}
	return newOpSince(start, name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		s, err := be.Scale(t.Len(), nil, g, scale)
		return []*Tensor{devResult(name+" backward", be, s, err, t.shape)}
	})
}

// LabelChecker is implemented by a Backend whose CrossEntropy checks the
// rows and labels itself (a row out of [0, N), listed twice, or with a
// label out of [0, C) is an error wrapping ErrIndex) when ChecksLabels
// says so. CrossEntropy then checks only the shapes, instead of reading
// every label on the host at every call, which a backend that keeps its
// device labels between calls (gnnlib/cuda) needs only when it uploads
// them.
type LabelChecker interface {
	ChecksLabels() bool
}

// deviceCrossEntropy is CrossEntropy on a device: the loss and its
// gradient come from one fused pass; the backward pass scales the stored
// gradient by the upstream one.
func deviceCrossEntropy(logits *Tensor, labels, rows []int) *Tensor {
	start := opStart()
	be := logits.dev.Backend()
	if lc, ok := be.(LabelChecker); ok && lc.ChecksLabels() {
		checkLossShape("CrossEntropy", logits, labels, rows)
	} else {
		checkLoss("CrossEntropy", logits, labels, rows)
	}
	ls, gs, err := be.CrossEntropy(logits, labels, rows)
	loss := devResult("CrossEntropy", be, ls, err, []int{})
	grad := &Tensor{dev: gs, shape: cloneInts(logits.shape)}
	return newOpSince(start, "CrossEntropy", loss, []*Tensor{logits}, func(g *Tensor) []*Tensor {
		var dl *Tensor
		if isUnitSeed(g) && ReleaseSpentActivations {
			// loss.Backward(): the gradient the forward pass made is
			// handed over, not scaled by 1 into a copy (only this
			// function had it, and it runs once).
			dl = grad
		} else {
			s, err := be.Scale(grad.Len(), grad, g, 1)
			dl = devResult("CrossEntropy backward", be, s, err, grad.shape)
			if ReleaseSpentActivations {
				freeStorage(grad) // only this function had it, and it runs once
			}
		}
		if dt := AutocastDType(); dt != Float32 && dl.DType() != dt {
			// Under Autocast (autocastOp runs the backward pass in the
			// forward pass's format) the gradient is stored in dt now
			// and its float32 copy freed, rather than rounded into a
			// copy with the float32 one left to the collector (a
			// backend that wrote it in dt already has nothing to do).
			storeHalf("CrossEntropy backward", dl, dt)
		}
		return []*Tensor{dl}
	})
}

// deviceClone copies a device tensor (detached).
func deviceClone(t *Tensor) *Tensor {
	be := t.dev.Backend()
	s, err := be.Copy(t)
	return devResult("Clone", be, s, err, t.shape)
}

// deviceAddInto is addInto for device gradients.
func deviceAddInto(dst, src *Tensor) {
	be := backendOf("Backward", dst, src)
	if err := be.AddTo(dst, src); err != nil {
		devicePanic("Backward", be, err)
	}
}

// deviceFull returns a device tensor of shape filled with v.
func deviceFull(be Backend, v float32, shape []int) *Tensor {
	s, err := be.Scale(numel(shape), nil, nil, v)
	return devResult("Full", be, s, err, shape)
}

// deviceString formats a device tensor by copying it back.
func deviceString(t *Tensor) string {
	h := t.moved(nil)
	h.node, h.requiresGrad = t.node, t.requiresGrad
	s := h.String()
	return s[:len(s)-1] + ", device=" + t.Device().String() + ")"
}

// deviceReshape is Reshape for a device tensor: a view sharing storage.
func deviceReshape(t *Tensor, shape []int) *Tensor {
	start := opStart()
	shape = reshapeTarget(t.shape, t.Len(), shape)
	out := &Tensor{dev: t.dev, shape: shape}
	return newOpSince(start, "Reshape", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{{dev: g.dev, shape: t.shape}}
	})
}
