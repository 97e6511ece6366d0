package nn

import (
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// GradScaler is dynamic loss scaling for training under
// tensor.Autocast(tensor.Float16, ...), as PyTorch's
// torch.amp.GradScaler: FP16's smallest value is about 6·10⁻⁸, so small
// gradients would flush to zero; multiplying the loss by a large scale
// before Backward lifts them into range, and Step divides the gradients
// by the scale again before the optimiser sees them. When some gradient
// overflowed (Inf or NaN), Step skips the update and Update halves the
// scale; after GrowthInterval steps without overflow Update doubles it.
//
//	scaler := nn.NewGradScaler()
//	for epoch := 0; epoch < 200; epoch++ {
//		var loss *tensor.Tensor
//		tensor.Autocast(tensor.Float16, func() {
//			loss = nn.CrossEntropy(model.Forward(g, x), y, train)
//		})
//		opt.ZeroGrad()
//		scaler.Scale(loss).Backward()
//		scaler.Step(opt, model.Params())
//		scaler.Update()
//	}
//
// BFloat16 has float32's range and needs no scaler.
type GradScaler struct {
	// GrowthFactor multiplies the scale after GrowthInterval steps
	// without overflow (2); BackoffFactor after an overflow (0.5).
	GrowthFactor, BackoffFactor float64
	GrowthInterval              int // 2000, as PyTorch

	scale   float64
	good    int  // steps without overflow since the scale last changed
	found   bool // the last Step found Inf or NaN gradients
	stepped bool // Step ran since the last Update
	skipped int
}

// NewGradScaler returns a scaler starting at 2¹⁶ = 65536, PyTorch's
// default.
func NewGradScaler() *GradScaler {
	return &GradScaler{GrowthFactor: 2, BackoffFactor: 0.5, GrowthInterval: 2000, scale: 65536}
}

// CurrentScale returns the scale the next Scale multiplies by.
func (s *GradScaler) CurrentScale() float64 { return s.scale }

// SetScale sets the scale (a positive, finite number).
func (s *GradScaler) SetScale(v float64) {
	if !(v > 0) || math.IsInf(v, 0) {
		panic(fmt.Errorf("nn: GradScaler.SetScale(%v): %w", v, ErrHyperparameter))
	}
	s.scale = v
}

// Skipped returns how many steps Step has skipped for overflow.
func (s *GradScaler) Skipped() int { return s.skipped }

// Scale returns loss times the current scale, computed in float32 even
// inside an Autocast scope (the scaled loss would overflow FP16); call
// Backward on it.
func (s *GradScaler) Scale(loss *tensor.Tensor) *tensor.Tensor {
	var out *tensor.Tensor
	tensor.Autocast(tensor.Float32, func() { out = loss.MulScalar(float32(s.scale)) })
	return out
}

// Step divides the gradients of params by the scale and, unless one of
// them holds an Inf or a NaN, runs opt.Step; it reports whether it did.
// A skipped step leaves the parameters and the optimiser's state as they
// were (the gradients are left unscaled).
func (s *GradScaler) Step(opt Optimizer, params []*tensor.Tensor) bool {
	inv := float32(1 / s.scale)
	s.found = false
	tensor.NoGrad(func() {
		for _, p := range params {
			g := p.Grad()
			if g == nil {
				continue
			}
			u := g.MulScalar(inv)
			p.SetGrad(u)
			if !finite(u) {
				s.found = true
			}
		}
	})
	s.stepped = true
	if s.found {
		s.skipped++
		return false
	}
	opt.Step()
	return true
}

// finite reports whether every value of t is finite; a device tensor is
// summed there and only the sum comes back (a NaN or Inf reaches it).
func finite(t *tensor.Tensor) bool {
	if t.IsOnDevice() {
		v := float64(t.Sum().Item())
		return !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	for _, v := range t.Data() {
		if v-v != 0 { // NaN or ±Inf
			return false
		}
	}
	return true
}

// Update adjusts the scale after a Step: BackoffFactor times it when that
// step overflowed, GrowthFactor times it after GrowthInterval good steps
// in a row.
func (s *GradScaler) Update() {
	if !s.stepped {
		return
	}
	s.stepped = false
	if s.found {
		s.scale *= s.BackoffFactor
		s.good = 0
		return
	}
	if s.good++; s.good >= s.GrowthInterval {
		s.scale *= s.GrowthFactor
		s.good = 0
	}
}
