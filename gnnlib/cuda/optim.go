package cuda

import (
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// AdamStep updates p, m and v in place as gnnlib/nn's Adam.Step does.
func (d *backend) AdamStep(p, grad, m, v *tensor.Tensor, step, beta1, beta2, eps, sqrtC2, weightDecay, shrink float32, decoupled bool) error {
	vs, err := d.views(p, grad, m, v)
	if err != nil {
		return err
	}
	n := int64(vs[0].Len())
	for _, x := range vs[1:] {
		if int64(x.Len()) != n {
			return shapeErr("AdamStep", "parameter of %d values, state of %d", n, x.Len())
		}
	}
	if n == 0 {
		return nil
	}
	return d.launch("adam_wd", d.gridFor(n, 256), 256, vs[0], vs[1], vs[2], vs[3], n, step, beta1, beta2, eps, sqrtC2, weightDecay, shrink, decoupled)
}

// SGDStep updates p (and buf, with momentum) in place as gnnlib/nn's
// SGD.Step does on the CPU.
func (d *backend) SGDStep(p, grad, buf *tensor.Tensor, lr, momentum, weightDecay float32, started bool) error {
	vs, err := d.views(p, grad, buf)
	if err != nil {
		return err
	}
	n := int64(vs[0].Len())
	if int64(vs[1].Len()) != n || (vs[2] != nil && int64(vs[2].Len()) != n) {
		return shapeErr("SGDStep", "parameter of %d values, gradient of %d", n, vs[1].Len())
	}
	if momentum != 0 && vs[2] == nil {
		return shapeErr("SGDStep", "momentum %g without a buffer", momentum)
	}
	if n == 0 {
		return nil
	}
	return d.launch("sgd_step", d.gridFor(n, 256), 256, vs[0], vs[1], vs[2], n, lr, momentum, weightDecay, started)
}

// optimMulti is OPTIM_MULTI in kernels/optim.cu: the most tensors one
// adam_multi or sgd_multi launch updates.
const optimMulti = 32

// AdamSteps is AdamStep over every parameter ps[i] with its gradient
// grads[i] and moments ms[i] and vs[i]. With tune.MultiTensorOptim it
// launches adam_multi once for up to optimMulti parameters, each value
// updated as adam_wd updates it; otherwise adam_wd once a parameter.
func (d *backend) AdamSteps(ps, grads, ms, vs []*tensor.Tensor, step, beta1, beta2, eps, sqrtC2, weightDecay, shrink float32, decoupled bool) error {
	if len(grads) != len(ps) || len(ms) != len(ps) || len(vs) != len(ps) {
		return shapeErr("AdamSteps", "%d parameters, %d gradients, %d and %d moments", len(ps), len(grads), len(ms), len(vs))
	}
	if !tune.MultiTensorOptim {
		for i, p := range ps {
			if err := d.AdamStep(p, grads[i], ms[i], vs[i], step, beta1, beta2, eps, sqrtC2, weightDecay, shrink, decoupled); err != nil {
				return err
			}
		}
		return nil
	}
	lists, err := d.optimLists("AdamSteps", 4, ps, grads, ms, vs)
	if err != nil {
		return err
	}
	return d.launchMulti("adam_multi", lists, step, beta1, beta2, eps, sqrtC2, weightDecay, shrink, decoupled)
}

// SGDSteps is SGDStep over every parameter ps[i] with its gradient
// grads[i] and momentum buffer bufs[i] (bufs nil, or its entries nil,
// without momentum). With tune.MultiTensorOptim it launches sgd_multi
// once for up to optimMulti parameters; otherwise sgd_step once a
// parameter.
func (d *backend) SGDSteps(ps, grads, bufs []*tensor.Tensor, lr, momentum, weightDecay float32, started bool) error {
	if bufs == nil {
		bufs = make([]*tensor.Tensor, len(ps))
	}
	if len(grads) != len(ps) || len(bufs) != len(ps) {
		return shapeErr("SGDSteps", "%d parameters, %d gradients, %d buffers", len(ps), len(grads), len(bufs))
	}
	if !tune.MultiTensorOptim {
		for i, p := range ps {
			if err := d.SGDStep(p, grads[i], bufs[i], lr, momentum, weightDecay, started); err != nil {
				return err
			}
		}
		return nil
	}
	for i, b := range bufs {
		if momentum != 0 && b == nil {
			return shapeErr("SGDSteps", "parameter %d: momentum %g without a buffer", i, momentum)
		}
	}
	lists, err := d.optimLists("SGDSteps", 2, ps, grads, bufs)
	if err != nil {
		return err
	}
	return d.launchMulti("sgd_multi", lists, lr, momentum, weightDecay, started)
}

// optimLists returns the device views of the tensor lists of a
// multi-tensor step, lists[0] the parameters and the others of the same
// sizes, without the parameters of no values. The first need lists must
// have every entry; a nil entry of the others stays nil.
func (d *backend) optimLists(op string, need int, lists ...[]*tensor.Tensor) ([][]*Tensor, error) {
	names := [...]string{"parameter", "gradient", "state", "state"}
	out := make([][]*Tensor, len(lists))
	for i := range lists[0] {
		var n int
		views := make([]*Tensor, len(lists))
		for j, l := range lists {
			if l[i] == nil {
				if j < need {
					return nil, shapeErr(op, "parameter %d: no %s", i, names[min(j, len(names)-1)])
				}
				continue
			}
			v, err := d.view(l[i])
			if err != nil {
				return nil, err
			}
			if j == 0 {
				n = v.Len()
			} else if v.Len() != n {
				return nil, shapeErr(op, "parameter %d of %d values, state of %d", i, n, v.Len())
			}
			views[j] = v
		}
		if n == 0 {
			continue
		}
		for j, v := range views {
			out[j] = append(out[j], v)
		}
	}
	return out, nil
}

// launchMulti launches kernel (adam_multi or sgd_multi) once for each
// optimMulti tensors of lists (lists[0] the parameters), with the
// kernel's scalar arguments first, after the count: its last parameter,
// the tensor list, a struct of sizes and pointers passed by value, is
// laid out in the argument slots that follow (the driver reads a
// parameter's bytes from its slot on, and the slots are contiguous),
// optimMulti sizes and then optimMulti pointers of each list, 0 past the
// count.
func (d *backend) launchMulti(kernel string, lists [][]*Tensor, scalars ...any) error {
	ps := lists[0]
	for lo := 0; lo < len(ps); lo += optimMulti {
		hi := min(lo+optimMulti, len(ps))
		args := make([]any, 0, 1+len(scalars)+optimMulti*(1+len(lists)))
		args = append(args, int32(hi-lo))
		args = append(args, scalars...)
		var most int64
		for i := range optimMulti {
			var n int64
			if lo+i < hi {
				n = int64(ps[lo+i].Len())
			}
			most = max(most, n)
			args = append(args, n)
		}
		for _, l := range lists {
			for i := range optimMulti {
				var t *Tensor
				if lo+i < hi {
					t = l[lo+i]
				}
				args = append(args, t)
			}
		}
		if err := d.launch(kernel, d.gridFor(most, 256), 256, args...); err != nil {
			return err
		}
	}
	return nil
}

// SumSquares returns the sum of the squares of every value of xs,
// accumulated in float64 on the device and copied back once.
func (d *backend) SumSquares(xs []*tensor.Tensor) (float64, error) {
	vs, err := d.views(xs...)
	if err != nil {
		return 0, err
	}
	acc, err := d.Zeros(1, 2) // one float64
	if err != nil {
		return 0, err
	}
	defer acc.Free()
	for _, v := range vs {
		if n := int64(v.Len()); n > 0 {
			if err := d.launch("sum_sq", min(d.gridFor(n, 256), 4*d.nsm), 256, v, acc, n); err != nil {
				return 0, err
			}
		}
	}
	raw, err := acc.Host()
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(uint64(math.Float32bits(raw[0])) | uint64(math.Float32bits(raw[1]))<<32), nil
}

// Adam is the Adam optimiser (Kingma and Ba) over device parameters, its
// moments kept on the device.
type Adam struct {
	LR, Beta1, Beta2, Eps float32
	step                  int
	m                     map[*Tensor][2]*Tensor // first and second moments
}

// NewAdam returns Adam with PyTorch's defaults for the betas and eps.
func NewAdam(lr float32) *Adam {
	return &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, m: map[*Tensor][2]*Tensor{}}
}

// Step updates each params[i] with grads[i] in place.
func (o *Adam) Step(params, grads []*Tensor) error {
	o.step++
	bc1 := 1 - pow32(o.Beta1, o.step)
	bc2 := 1 - pow32(o.Beta2, o.step)
	for i, p := range params {
		d := p.buf.dev
		st, ok := o.m[p]
		if !ok {
			m, err := d.Zeros(p.Rows, p.Cols)
			if err != nil {
				return err
			}
			v, err := d.Zeros(p.Rows, p.Cols)
			if err != nil {
				return err
			}
			st = [2]*Tensor{m, v}
			o.m[p] = st
		}
		n := int64(p.Len())
		if grads[i].Len() != p.Len() {
			return shapeErr("Adam.Step", "param %d: %d values, gradient %d", i, p.Len(), grads[i].Len())
		}
		if err := d.launch("adam", d.gridFor(n, 256), 256, p, grads[i], st[0], st[1], n, o.LR, o.Beta1, o.Beta2, o.Eps, bc1, bc2); err != nil {
			return err
		}
	}
	return nil
}

func pow32(b float32, n int) float32 {
	r := float64(1)
	for i := 0; i < n; i++ {
		r *= float64(b)
	}
	return float32(r)
}
