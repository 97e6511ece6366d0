package cuda

import (
	"math"

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
