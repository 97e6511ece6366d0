package tensor

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/gnnlab/gnnlab/gnnlib/internal/half"
)

// DType names the format in which a tensor's values are stored. Host
// tensors always hold float32 values; under Autocast with BFloat16 or
// Float16 every value an op stores has been rounded to that format, so the
// float32 holds exactly a 16-bit number (see Autocast).
type DType int

// The storage formats.
const (
	Float32  DType = iota // IEEE 754 binary32, 4 bytes
	BFloat16              // bfloat16: float32's exponent, 8 significant bits, 2 bytes
	Float16               // IEEE 754 binary16: 11 significant bits, largest 65504, 2 bytes
)

// String returns the PyTorch name of the format ("float32", "bfloat16",
// "float16").
func (d DType) String() string {
	switch d {
	case Float32:
		return "float32"
	case BFloat16:
		return "bfloat16"
	case Float16:
		return "float16"
	}
	return fmt.Sprintf("DType(%d)", int(d))
}

// Size returns the bytes one value takes in the format.
func (d DType) Size() int {
	if d == BFloat16 || d == Float16 {
		return 2
	}
	return 4
}

// Round returns v rounded to the nearest value of the format (ties to
// even), as a float32; Float32 returns v.
func (d DType) Round(v float32) float32 {
	switch d {
	case BFloat16:
		return half.RoundBF16(v)
	case Float16:
		return half.RoundF16(v)
	}
	return v
}

// roundSlice rounds x to d in place.
func (d DType) roundSlice(x []float32) {
	switch d {
	case BFloat16:
		parallelFor(len(x), elemGrain, func(lo, hi int) { half.RoundBF16s(x[lo:hi]) })
	case Float16:
		parallelFor(len(x), elemGrain, func(lo, hi int) { half.RoundF16s(x[lo:hi]) })
	}
}

// Autocast state, per goroutine as grad mode is (see GradEnabled):
// castOn counts the goroutines with a scope open, so that an op costs
// one atomic load while there are none; castBy holds each one's stack.
var (
	castOn atomic.Int64
	castMu sync.Mutex
	castBy = map[uint64][]DType{}
)

// Autocast runs f with mixed precision dt on the calling goroutine, as
// PyTorch's torch.autocast(dtype=...) does:
//
//	tensor.Autocast(tensor.BFloat16, func() {
//		loss = nn.CrossEntropy(model.Forward(g, x), y, train)
//	})
//	loss.Backward() // the backward pass follows the forward pass's formats
//	opt.Step()      // on the float32 master weights
//
// Inside the scope, the output of every op (features, activations) is
// stored in dt: its float32 values are rounded to dt on store, and the
// gradients the backward pass makes for the op's inputs are rounded the
// same way, whenever Backward runs. Reductions and accumulations inside
// the ops stay float32 (a matrix product reads both operands in dt, a
// float32 weight rounded, as torch.autocast does, and sums their products
// in float32), and the ops whose results need the range or
// the precision keep float32 outputs: Softmax, LogSoftmax, the losses
// (CrossEntropy, NLL, MSE, BCEWithLogits), Sum, Mean, the norms and
// the per-node attention logits of GAT on a device (HeadDot, the fused
// form of the product and axis sum whose sum the CPU keeps in float32).
// Parameters are leaves, never an op's output, so they stay float32: the
// optimisers update float32 master weights, as in PyTorch.
//
// On the CPU this is an emulation, the reference that the device's 16-bit
// kernels are tested against: the numbers are those of 16-bit storage,
// the speed and memory are float32's. On a device the backend rounds the
// outputs of its ops in place (it must implement HalfBackend).
//
// Float16 has a narrow range: use it with nn.GradScaler, which scales the
// loss so that small gradients survive and skips the steps whose
// gradients overflowed. BFloat16 needs no scaling. Float32 turns
// autocast off inside f.
func Autocast(dt DType, f func()) {
	restore := SetAutocast(dt)
	defer restore()
	f()
}

// SetAutocast is Autocast without the function: mixed precision dt holds
// for the calling goroutine until restore is called (restore :=
// tensor.SetAutocast(tensor.BFloat16); defer restore()). Calls nest.
// The scope is the calling goroutine's, so in a notebook, where a cell
// may run on another goroutine than the cell before it, open it in the
// cell that trains (or use Autocast there).
func SetAutocast(dt DType) (restore func()) {
	if dt != Float32 && dt != BFloat16 && dt != Float16 {
		panic(fmt.Errorf("tensor: SetAutocast(%v): %w", dt, ErrDType))
	}
	return pushAutocast(goid(), dt)
}

// pushAutocast opens a scope of dt for the goroutine whose id is id:
// SetAutocast's, and the backward pass's for each device op recorded
// under Autocast (BackwardWith, which looks its goroutine's id up once).
func pushAutocast(id uint64, dt DType) (restore func()) {
	castMu.Lock()
	castBy[id] = append(castBy[id], dt)
	castMu.Unlock()
	castOn.Add(1)
	var done atomic.Bool
	return func() {
		if !done.CompareAndSwap(false, true) {
			return
		}
		castMu.Lock()
		if s := castBy[id]; len(s) <= 1 {
			delete(castBy, id)
		} else {
			castBy[id] = s[:len(s)-1]
		}
		castMu.Unlock()
		castOn.Add(-1)
	}
}

// AutocastDType returns the mixed-precision format of the calling
// goroutine's innermost Autocast scope, or Float32 outside every scope.
func AutocastDType() DType {
	if castOn.Load() == 0 {
		return Float32
	}
	id := goid()
	castMu.Lock()
	defer castMu.Unlock()
	if s := castBy[id]; len(s) > 0 {
		return s[len(s)-1]
	}
	return Float32
}

// ErrDType is wrapped by the panic of SetAutocast or RoundTo given a
// format that does not exist.
var ErrDType = errors.New("tensor: unknown dtype (want tensor.Float32, tensor.BFloat16 or tensor.Float16)")

// fp32Ops are the ops whose outputs stay float32 under Autocast.
// HeadDot is gnnlib/nn's GAT attention logits on a device: one op for the
// CPU's product and SumAxis, whose float32 output the softmax reads; a
// bfloat16 logit would move each score by up to 2⁻⁹ of its size (in
// PyTorch a bfloat16 feature times the float32 attention vector is
// float32 too).
var fp32Ops = map[string]bool{
	"HeadDot": true,
	"Softmax": true, "LogSoftmax": true, "EdgeSoftmax": true,
	"CrossEntropy": true, "NLL": true, "MSE": true, "BCEWithLogits": true,
	"Sum": true, "Mean": true, "SumAxis": true, "MeanAxis": true,
	"LayerNorm": true, "BatchNorm": true, "To": true,
}

// autocastOp applies the calling goroutine's Autocast format to an op
// being recorded: it rounds out in place (unless the op keeps float32)
// and wraps backward so that the gradients it returns are rounded. It
// returns the wrapped backward, the format out is stored in and the
// format of the gradients the backward pass returns (Autocast's).
func autocastOp(name string, out *Tensor, inputs []*Tensor, backward BackwardFunc) (_ BackwardFunc, stored, cast DType) {
	dt := AutocastDType()
	if dt == Float32 {
		return backward, Float32, Float32
	}
	stored = Float32
	// A view (Reshape of a host tensor) shares its input's values: they
	// are left as they are, as a view of a float32 parameter stays
	// float32 in PyTorch.
	switch {
	case out.sp != nil:
	case out.DType() == dt:
		// A backend stored the op's output in dt itself (gnnlib/cuda's
		// tensor-core MatMul under Autocast).
		stored = dt
	case !fp32Ops[name] && !aliases(out, inputs):
		storeHalf(name, out, dt)
		stored = dt
	}
	if backward == nil {
		return nil, stored, dt
	}
	onDevice := out.dev != nil
	var pg *paramGrads
	if onDevice && RoundParamGradsInPlace {
		pg = newParamGrads(inputs)
	}
	// On a device the backward pass runs backward inside a scope of dt
	// (BackwardWith: the op's node is a device op of format dt).
	return func(g *Tensor) []*Tensor {
		gs := backward(g)
		for i, gi := range gs {
			if gi == nil || gi.sp != nil || gi.DType() == dt {
				continue
			}
			if pg.inPlace(i, gi, g, gs) {
				// A parameter's float32 gradient, which this pass
				// made: rounded where it lies, and its leaf takes it
				// as it is (no 16-bit copy widened again).
				roundInPlace(name+" backward", gi, dt)
				continue
			}
			gs[i] = roundedCopy(name+" backward", gi, dt)
		}
		return gs
	}, stored, dt
}

// RoundParamGradsInPlace makes the backward pass of a device op recorded
// under Autocast round a float32 gradient it returns for a parameter (a
// float32 leaf that requires its gradient) in place, in float32 memory,
// where the gradient's storage is its own (not the upstream gradient's,
// another returned gradient's or an input's): the leaf then takes it as
// it is. false rounds it into new 16-bit storage (HalfStorer), which the
// leaf widens into a float32 copy again: two passes and two launches for
// one. The values are the same, 16-bit values in float32 (gnnlib/cuda's
// TestBF16EpochLaunches counts the launches; TestAutocastParamGradInPlace
// checks the values on devicetest.Fake). On by default.
var RoundParamGradsInPlace = true

// paramGrads is what a wrapped backward function needs to know of an
// op's inputs for RoundParamGradsInPlace, without holding the inputs that
// are not parameters (activations, which the backward pass must not keep
// alive): the parameters (float32 leaves that require their gradients,
// which live anyway) by position, and weak pointers to the rest.
type paramGrads struct {
	params []*Tensor // nil where the input is not a parameter
	others []weak.Pointer[Tensor]
}

// newParamGrads returns the paramGrads of inputs, or nil when none is a
// parameter.
func newParamGrads(inputs []*Tensor) *paramGrads {
	p := &paramGrads{params: make([]*Tensor, len(inputs))}
	has := false
	for i, in := range inputs {
		switch {
		case in == nil:
		case in.node == nil && in.requiresGrad && in.DType() == Float32 && in.dev != nil:
			p.params[i], has = in, true
		default:
			p.others = append(p.others, weak.Make(in))
		}
	}
	if !has {
		return nil
	}
	return p
}

// inPlace reports whether gi, the float32 gradient the backward pass
// returned for input i, may be rounded where it lies: input i is a
// parameter, its device rounds in place (HalfBackend), and gi's storage
// is not the upstream gradient g's, another returned gradient's or an
// input's.
func (p *paramGrads) inPlace(i int, gi, g *Tensor, gs []*Tensor) bool {
	if p == nil || i >= len(p.params) || p.params[i] == nil || gi.dev == nil {
		return false
	}
	if _, ok := gi.dev.Backend().(HalfBackend); !ok {
		return false
	}
	if g != nil && g.dev == gi.dev {
		return false
	}
	for _, o := range gs {
		if o != nil && o != gi && o.dev == gi.dev {
			return false
		}
	}
	for _, o := range p.params {
		if o != nil && o.dev == gi.dev {
			return false
		}
	}
	for _, w := range p.others {
		if o := w.Value(); o != nil && o.dev == gi.dev {
			return false
		}
	}
	return true
}

// storeHalf stores a fresh op output in dt: on a backend that stores
// 16-bit values (HalfStorer) out's storage is replaced by its 16-bit copy
// and the float32 one freed; elsewhere its values are rounded in place.
func storeHalf(op string, out *Tensor, dt DType) {
	if out.dev != nil {
		if hs, ok := out.dev.Backend().(HalfStorer); ok {
			s, err := hs.ToHalf(out, dt)
			switch {
			case err == nil:
				old := out.dev
				out.dev = s
				if f, ok := old.(interface{ Free() }); ok {
					f.Free()
				}
				return
			case !errors.Is(err, ErrNotOnDevice):
				devicePanic(op+" under Autocast", out.dev.Backend(), err)
			}
		}
	}
	roundInPlace(op, out, dt)
}

// DType returns the format t's values are stored in. A host tensor is
// always stored in Float32 (Autocast's CPU emulation rounds the values
// but keeps float32 memory). On a device, the outputs of the ops run
// under Autocast, and the gradients their backward passes make, are
// stored in the 16-bit format (two bytes a value) where the backend
// keeps 16-bit storage (HalfStorer: gnnlib/cuda for BFloat16,
// devicetest.Fake for both); ops read them as float32 values.
// Parameters and their gradients stay Float32.
func (t *Tensor) DType() DType {
	if d, ok := t.dev.(interface{ DType() DType }); ok {
		return d.DType()
	}
	return Float32
}

// aliases reports whether out shares its values with one of inputs.
func aliases(out *Tensor, inputs []*Tensor) bool {
	for _, in := range inputs {
		if in == nil || in.sp != nil {
			continue
		}
		if out.dev != nil {
			if in.dev == out.dev {
				return true
			}
			continue
		}
		if len(out.data) > 0 && len(in.data) > 0 {
			o0 := uintptr(unsafe.Pointer(&out.data[0]))
			o1 := o0 + uintptr(len(out.data))*4
			i0 := uintptr(unsafe.Pointer(&in.data[0]))
			i1 := i0 + uintptr(len(in.data))*4
			if o0 < i1 && i0 < o1 {
				return true
			}
		}
	}
	return false
}

// roundInPlace rounds a fresh op output to dt where it lies.
func roundInPlace(op string, t *Tensor, dt DType) {
	if t.dev == nil {
		dt.roundSlice(t.data)
		return
	}
	hb, ok := t.dev.Backend().(HalfBackend)
	if !ok {
		panic(&DeviceError{Op: op + " under Autocast(" + dt.String() + ")", Device: deviceName(t.dev.Backend()), Err: ErrNotOnDevice})
	}
	if err := hb.RoundHalf(t.dev, t.Len(), dt); err != nil {
		devicePanic(op+" under Autocast", t.dev.Backend(), err)
	}
}

// roundedCopy returns a copy of t rounded to dt; a gradient may alias a
// tensor of the graph, so it is never rounded where it lies. On a
// HalfStorer the copy is stored in dt.
func roundedCopy(op string, t *Tensor, dt DType) *Tensor {
	if t.dev != nil {
		if hs, ok := t.dev.Backend().(HalfStorer); ok {
			s, err := hs.ToHalf(t, dt)
			switch {
			case err == nil:
				return &Tensor{dev: s, shape: cloneInts(t.shape)}
			case !errors.Is(err, ErrNotOnDevice):
				devicePanic(op+" under Autocast", t.dev.Backend(), err)
			}
		}
	}
	c := t.dense().Clone()
	c.node = nil
	roundInPlace(op, c, dt)
	return c
}

// HalfStorer is the optional part of a HalfBackend that keeps the values
// of Autocast's ops in 16-bit memory, two bytes a value, rather than
// rounded in float32 memory: the storage it returns has a method DType()
// DType naming the format (Tensor.DType reads it), and every method of
// the Backend takes such storage as an operand (reading its values as
// float32) wherever it takes float32 storage, except as the destination
// of AddTo. Copy of 16-bit storage returns float32 storage (Clone
// widens: gradients are accumulated in float32).
type HalfStorer interface {
	HalfBackend
	// ToHalf returns t's values rounded to dt (to nearest, ties to
	// even) in new 16-bit storage. An error wrapping ErrNotOnDevice
	// means the backend does not store dt: Autocast then rounds in
	// float32 memory (RoundHalf).
	ToHalf(t *Tensor, dt DType) (Storage, error)
}

// HalfBackend is the optional part of a Backend that runs Autocast: a
// backend without it refuses device ops under Autocast with a
// *DeviceError wrapping ErrNotOnDevice.
type HalfBackend interface {
	// RoundHalf rounds the n float32 values of s in place to the
	// nearest values of dt (BFloat16 or Float16), ties to even, with
	// the conversion of gnnlib/internal/half.
	RoundHalf(s Storage, n int, dt DType) error
}

// RoundTo returns t with its values rounded to dt (a new tensor, on t's
// device), as storing t in dt and reading it back would give; Float32
// returns a copy. The gradient passes through unchanged (rounding is
// treated as the identity, as a cast is in PyTorch).
func (t *Tensor) RoundTo(dt DType) *Tensor {
	if dt != Float32 && dt != BFloat16 && dt != Float16 {
		panic(fmt.Errorf("tensor: RoundTo(%v): %w", dt, ErrDType))
	}
	if t.sp != nil {
		panic(fmt.Errorf("tensor: RoundTo: %w", ErrSparse))
	}
	out := t.Clone()
	if dt != Float32 {
		roundInPlace("RoundTo", out, dt)
	}
	return NewOp("RoundTo", out, []*Tensor{t}, func(g *Tensor) []*Tensor { return []*Tensor{g} })
}
