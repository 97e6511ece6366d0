package nn

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

func panicOf(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("panic: %v", r)
			}
		}
	}()
	f()
	return nil
}

// TestInvalidHyperparameters: a negative or NaN learning rate and the like
// are rejected with ErrHyperparameter (issue 20, 9: NewAdam(params, -1, 0)
// and NaN rates were accepted).
func TestInvalidHyperparameters(t *testing.T) {
	p := tensor.Ones(3).SetRequiresGrad(true)
	ps := []*tensor.Tensor{p}
	nan, inf := math.NaN(), math.Inf(1)
	withGrad := func(o Optimizer) func() {
		return func() {
			p.Sum().Backward()
			o.Step()
		}
	}
	tests := []struct {
		name string
		f    func()
		bad  bool
	}{
		{"NewAdam(-1, 0)", func() { NewAdam(ps, -1, 0) }, true},
		{"NewAdam(NaN, 0)", func() { NewAdam(ps, nan, 0) }, true},
		{"NewAdam(Inf, 0)", func() { NewAdam(ps, inf, 0) }, true},
		{"NewAdam(0.01, -1)", func() { NewAdam(ps, 0.01, -1) }, true},
		{"NewAdamW(0.01, NaN)", func() { NewAdamW(ps, 0.01, nan) }, true},
		{"NewSGD(NaN, 0, 0)", func() { NewSGD(ps, nan, 0, 0) }, true},
		{"NewSGD(0.1, -0.9, 0)", func() { NewSGD(ps, 0.1, -0.9, 0) }, true},
		{"SetLR(NaN)", func() { NewAdam(ps, 0.01, 0).SetLR(nan) }, true},
		{"SetLR(-1)", func() { NewSGD(ps, 0.01, 0, 0).SetLR(-1) }, true},
		{"Beta1 = 1", func() { a := NewAdam(ps, 0.01, 0); a.Beta1 = 1; withGrad(a)() }, true},
		{"Eps = NaN", func() { a := NewAdam(ps, 0.01, 0); a.Eps = nan; withGrad(a)() }, true},
		{"Momentum = Inf", func() { s := NewSGD(ps, 0.01, 0, 0); s.Momentum = inf; withGrad(s)() }, true},
		{"ClipGradNorm(NaN)", func() { ClipGradNorm(ps, nan) }, true},
		{"ClipGradNorm(-1)", func() { ClipGradNorm(ps, -1) }, true},
		{"ClipGradNorm(-Inf)", func() { ClipGradNorm(ps, -inf) }, true},
		// +Inf measures the norm without clipping (notebook 01 does).
		{"ClipGradNorm(+Inf)", func() { withGrad(NewSGD(ps, 0, 0, 0))(); ClipGradNorm(ps, inf) }, false},
		{"NewAdam(0.01, 5e-4) steps", withGrad(NewAdam(ps, 0.01, 5e-4)), false},
		{"NewSGD(0, 0.9, 0) steps", withGrad(NewSGD(ps, 0, 0.9, 0)), false},
	}
	for _, tt := range tests {
		err := panicOf(tt.f)
		if tt.bad && !errors.Is(err, ErrHyperparameter) || !tt.bad && err != nil {
			t.Errorf("%s: panic %v, want ErrHyperparameter: %v", tt.name, err, tt.bad)
		}
	}
}
