package nn_test

import (
	"errors"
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

func newOpt(lr float64) *nn.SGD {
	return nn.NewSGD([]*tensor.Tensor{tensor.Zeros(2).SetRequiresGrad(true)}, lr, 0, 0)
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestStepLR(t *testing.T) {
	opt := newOpt(0.1)
	s := nn.NewStepLR(opt, 3, 0.5)
	want := []float64{0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025}
	for i, w := range want {
		s.Step()
		if !near(opt.LR(), w) {
			t.Errorf("after %d steps lr = %v, want %v", i+1, opt.LR(), w)
		}
	}
}

func TestCosineAnnealingLR(t *testing.T) {
	opt := nn.NewAdam([]*tensor.Tensor{tensor.Zeros(1).SetRequiresGrad(true)}, 1, 0)
	s := nn.NewCosineAnnealingLR(opt, 4, 0.2)
	// 0.2 + 0.8·(1+cos(πt/4))/2 for t = 1…5.
	want := []float64{0.2 + 0.4*(1+math.Sqrt2/2), 0.6, 0.2 + 0.4*(1-math.Sqrt2/2), 0.2, 0.2 + 0.4*(1-math.Sqrt2/2)}
	for i, w := range want {
		s.Step()
		if !near(s.LR(), w) {
			t.Errorf("after %d steps lr = %v, want %v", i+1, s.LR(), w)
		}
	}
}

func TestReduceLROnPlateau(t *testing.T) {
	opt := newOpt(1)
	s := nn.NewReduceLROnPlateau(opt, "min", 0.1, 2)
	s.MinLR = 0.005
	// Losses: improvements, then a plateau; the rate drops after the
	// third epoch without improvement (patience 2), and again three
	// epochs later, then stops at MinLR.
	losses := []float64{5, 4, 4, 3.99999, 4.5, 3, 3, 3, 3, 3, 3, 3, 3, 3}
	want := []float64{1, 1, 1, 1, 0.1, 0.1, 0.1, 0.1, 0.01, 0.01, 0.01, 0.005, 0.005, 0.005}
	for i, l := range losses {
		if got := s.Step(l); !near(got, want[i]) {
			t.Errorf("epoch %d (loss %v): lr = %v, want %v", i, l, got, want[i])
		}
	}
	acc := nn.NewReduceLROnPlateau(newOpt(1), "max", 0.5, 0)
	if acc.Step(0.5); acc.Step(0.6) != 1 || acc.Step(0.6) != 0.5 {
		t.Errorf("max mode with patience 0: lr = %v after a repeat, want 0.5", acc.LR())
	}
}

func TestEarlyStopping(t *testing.T) {
	e := nn.NewEarlyStopping(3, "max")
	vals := []float64{0.5, 0.6, 0.55, 0.6, 0.7, 0.7, 0.69, 0.65}
	stops := []bool{false, false, false, false, false, false, false, true}
	improved := []bool{true, true, false, false, true, false, false, false}
	for i, v := range vals {
		stop := e.Step(v)
		if stop != stops[i] || e.Improved() != improved[i] {
			t.Errorf("epoch %d (%v): stop %t improved %t, want %t %t", i, v, stop, e.Improved(), stops[i], improved[i])
		}
	}
	if e.Best() != 0.7 || e.BestEpoch() != 4 {
		t.Errorf("Best, BestEpoch = %v, %d, want 0.7, 4", e.Best(), e.BestEpoch())
	}
	loss := nn.NewEarlyStopping(1, "min")
	loss.MinDelta = 0.1
	if loss.Step(1) || !loss.Step(0.95) {
		t.Error("min mode, MinDelta 0.1: a fall of 0.05 should count as no improvement and stop")
	}
	nan := nn.NewEarlyStopping(2, "max")
	if nan.Step(math.NaN()) || !nan.Step(math.NaN()) {
		t.Error("two NaN metrics with patience 2 should stop")
	}
}

func TestSchedulerErrors(t *testing.T) {
	for name, f := range map[string]func(){
		"StepLR size 0":       func() { nn.NewStepLR(newOpt(1), 0, 0.5) },
		"StepLR gamma NaN":    func() { nn.NewStepLR(newOpt(1), 1, math.NaN()) },
		"Cosine tMax 0":       func() { nn.NewCosineAnnealingLR(newOpt(1), 0, 0) },
		"Plateau mode":        func() { nn.NewReduceLROnPlateau(newOpt(1), "up", 0.5, 1) },
		"Plateau factor 1":    func() { nn.NewReduceLROnPlateau(newOpt(1), "min", 1, 1) },
		"EarlyStopping mode":  func() { nn.NewEarlyStopping(3, "best") },
		"EarlyStopping pat 0": func() { nn.NewEarlyStopping(0, "min") },
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				if !errors.Is(err, nn.ErrHyperparameter) {
					t.Errorf("%s: panic %v, want an error wrapping ErrHyperparameter", name, err)
				}
			}()
			f()
		}()
	}
}
