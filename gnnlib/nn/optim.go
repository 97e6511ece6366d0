package nn

import (
	"errors"
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/internal/parallel"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// Optimizer updates parameters from their gradients.
type Optimizer interface {
	// Step updates every parameter that has a gradient.
	Step()
	// ZeroGrad clears the gradients of all parameters.
	ZeroGrad()
}

// ErrHyperparameter is wrapped by the panic value of an optimiser given
// an invalid hyper-parameter: a NaN or infinite value, a negative learning
// rate, momentum, epsilon or weight decay, or a beta outside [0, 1). The
// constructors, SetLR and Step check (Step for the exported fields).
var ErrHyperparameter = errors.New("nn: invalid hyper-parameter")

// checkHyper panics with an error wrapping ErrHyperparameter unless v is
// finite, at least 0 and (when below1) less than 1.
func checkHyper(op, name string, v float64, below1 bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || below1 && v >= 1 {
		want := "a finite value ≥ 0"
		if below1 {
			want = "in [0, 1)"
		}
		panic(fmt.Errorf("nn: %s: %s = %v, want %s: %w", op, name, v, want, ErrHyperparameter))
	}
}

// optimBase holds the parameters and the learning rate shared by the
// optimisers.
type optimBase struct {
	params []*tensor.Tensor
	lr     float64
}

// ZeroGrad clears the gradients.
func (o *optimBase) ZeroGrad() {
	for _, p := range o.params {
		p.ZeroGrad()
	}
}

// LR returns the learning rate.
func (o *optimBase) LR() float64 { return o.lr }

// SetLR changes the learning rate (for a schedule). A NaN, infinite or
// negative rate panics with an error wrapping ErrHyperparameter.
func (o *optimBase) SetLR(lr float64) {
	checkHyper("SetLR", "lr", lr, false)
	o.lr = lr
}

// Params returns the parameters the optimiser updates.
func (o *optimBase) Params() []*tensor.Tensor { return o.params }

// state returns one zeroed buffer per parameter.
func buffers(ps []*tensor.Tensor) [][]float32 {
	b := make([][]float32, len(ps))
	for i, p := range ps {
		b[i] = make([]float32, p.Len())
	}
	return b
}

// SGD is stochastic gradient descent with optional momentum and L2 weight
// decay, as PyTorch's SGD: g += WeightDecay·p; buf = Momentum·buf + g;
// p −= LR·buf.
type SGD struct {
	optimBase
	Momentum, WeightDecay float64
	buf                   [][]float32
	started               bool
	// db holds the momentum buffers of parameters on a device, made at
	// their first step there.
	db []*tensor.Tensor
}

// NewSGD returns an SGD optimiser. Invalid hyper-parameters panic with an
// error wrapping ErrHyperparameter.
func NewSGD(params []*tensor.Tensor, lr, momentum, weightDecay float64) *SGD {
	checkSGD("NewSGD", lr, momentum, weightDecay)
	return &SGD{optimBase: optimBase{params: params, lr: lr}, Momentum: momentum, WeightDecay: weightDecay, buf: buffers(params)}
}

func checkSGD(op string, lr, momentum, weightDecay float64) {
	checkHyper(op, "lr", lr, false)
	checkHyper(op, "momentum", momentum, false)
	checkHyper(op, "weightDecay", weightDecay, false)
}

// Step updates the parameters.
func (o *SGD) Step() {
	checkSGD("SGD.Step", o.lr, o.Momentum, o.WeightDecay)
	lr, mom, wd := float32(o.lr), float32(o.Momentum), float32(o.WeightDecay)
	var onDev []int
	for i, p := range o.params {
		g := p.Grad()
		if g == nil {
			continue
		}
		if p.IsOnDevice() {
			onDev = append(onDev, i)
			continue
		}
		if o.db != nil && o.db[i] != nil { // back from a device: its momentum comes along
			copy(o.buf[i], o.db[i].CPU().Data())
			o.db[i] = nil
		}
		pd, gd, b := p.Data(), g.Data(), o.buf[i]
		for j := range pd {
			gj := gd[j] + wd*pd[j]
			if mom != 0 {
				if o.started {
					gj += mom * b[j]
				}
				b[j] = gj
			}
			pd[j] -= lr * gj
		}
	}
	if onDev != nil {
		o.deviceSteps(onDev)
	}
	o.started = true
}

// Adam is the Adam optimiser of Kingma and Ba with PyTorch's L2 weight
// decay (added to the gradient, coupled with the adaptive scaling), which
// is what Kipf and Welling's GCN uses with 5e-4. Decoupled is AdamW.
type Adam struct {
	optimBase
	Beta1, Beta2, Eps, WeightDecay float64
	decoupled                      bool
	m, v                           [][]float32
	t                              int
	// dm holds the moments of parameters on a device, made at their first
	// step there.
	dm [][2]*tensor.Tensor
}

// NewAdam returns Adam with betas (0.9, 0.999), eps 1e-8 and L2 weight
// decay weightDecay. Invalid hyper-parameters panic with an error wrapping
// ErrHyperparameter.
func NewAdam(params []*tensor.Tensor, lr, weightDecay float64) *Adam {
	checkHyper("NewAdam", "lr", lr, false)
	checkHyper("NewAdam", "weightDecay", weightDecay, false)
	return &Adam{optimBase: optimBase{params: params, lr: lr}, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8,
		WeightDecay: weightDecay, m: buffers(params), v: buffers(params)}
}

// NewAdamW returns AdamW (Loshchilov and Hutter): Adam whose weight decay
// shrinks the parameters directly, p −= LR·WeightDecay·p, instead of
// entering the gradient. PyTorch's default weight decay is 0.01.
func NewAdamW(params []*tensor.Tensor, lr, weightDecay float64) *Adam {
	a := NewAdam(params, lr, weightDecay)
	a.decoupled = true
	return a
}

// Step updates the parameters.
func (o *Adam) Step() {
	for _, h := range []struct {
		name   string
		v      float64
		below1 bool
	}{{"lr", o.lr, false}, {"Beta1", o.Beta1, true}, {"Beta2", o.Beta2, true}, {"Eps", o.Eps, false}, {"WeightDecay", o.WeightDecay, false}} {
		checkHyper("Adam.Step", h.name, h.v, h.below1)
	}
	o.t++
	b1, b2 := o.Beta1, o.Beta2
	c1 := 1 - math.Pow(b1, float64(o.t))
	c2 := 1 - math.Pow(b2, float64(o.t))
	// p −= lr/c1 · m / (sqrt(v)/sqrt(c2) + eps), PyTorch's arrangement.
	step := float32(o.lr / c1)
	sc2 := float32(math.Sqrt(c2))
	eps := float32(o.Eps)
	fb1, fb2 := float32(b1), float32(b2)
	wd := float32(o.WeightDecay)
	shrink := float32(1 - o.lr*o.WeightDecay)
	var onDev []int
	for i, p := range o.params {
		g := p.Grad()
		if g == nil {
			continue
		}
		if p.IsOnDevice() {
			onDev = append(onDev, i)
			continue
		}
		if o.dm != nil && o.dm[i][0] != nil { // back from a device: its moments come along
			copy(o.m[i], o.dm[i][0].CPU().Data())
			copy(o.v[i], o.dm[i][1].CPU().Data())
			o.dm[i] = [2]*tensor.Tensor{}
		}
		pd, gd, m, v := p.Data(), g.Data(), o.m[i], o.v[i]
		splitRange(len(pd), 1<<14, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				gj := gd[j]
				if o.decoupled {
					pd[j] *= shrink
				} else {
					gj += wd * pd[j]
				}
				m[j] = fb1*m[j] + (1-fb1)*gj
				v[j] = fb2*v[j] + (1-fb2)*gj*gj
				pd[j] -= step * m[j] / (float32(math.Sqrt(float64(v[j])))/sc2 + eps)
			}
		})
	}
	if onDev != nil {
		o.deviceSteps(onDev, step, sc2)
	}
}

// splitRange is parallel.For: f on up to tensor.Threads() ranges of at
// least grain items. The update of a large weight matrix (LeNet-5's
// 400×120) is otherwise a serial tenth of an epoch.
func splitRange(n, grain int, f func(lo, hi int)) { parallel.For(n, grain, f) }

// ClipGradNorm scales the gradients of params so that their joint L2 norm
// is at most maxNorm, and returns the norm before clipping. Gradients on a
// device are summed there; returning the norm waits for the device, and
// a clipped device gradient is replaced (SetGrad) by a scaled copy.
//
// A maxNorm of +Inf clips nothing and only measures the norm, as in
// PyTorch's clip_grad_norm_; a NaN, negative or -Inf maxNorm panics with
// an error wrapping ErrHyperparameter.
func ClipGradNorm(params []*tensor.Tensor, maxNorm float64) float64 {
	if !math.IsInf(maxNorm, 1) {
		checkHyper("ClipGradNorm", "maxNorm", maxNorm, false)
	}
	var s float64
	var onDev []*tensor.Tensor
	for _, p := range params {
		if g := p.Grad(); g != nil {
			if g.IsOnDevice() {
				onDev = append(onDev, g)
				continue
			}
			for _, v := range g.Data() {
				s += float64(v) * float64(v)
			}
		}
	}
	if onDev != nil {
		s += deviceSumSquares(onDev)
	}
	norm := math.Sqrt(s)
	if norm > maxNorm {
		f := float32(maxNorm / (norm + 1e-6))
		for _, p := range params {
			g := p.Grad()
			switch {
			case g == nil:
			case g.IsOnDevice():
				st, err := g.Device().Scale(g.Len(), g, nil, f)
				deviceCheck("ClipGradNorm", g, err)
				p.SetGrad(backend.FromStorage(st, g.Shape()...))
			default:
				d := g.Data()
				for j := range d {
					d[j] *= f
				}
			}
		}
	}
	return norm
}
