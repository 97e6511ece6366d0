package nn

import (
	"fmt"
	"math"
)

// LRSetter is an optimiser whose learning rate a schedule can change:
// SGD, Adam and AdamW are, and so is a notebook cell's type with these
// two methods.
type LRSetter interface {
	LR() float64
	SetLR(lr float64)
}

// StepLR multiplies the learning rate by Gamma every StepSize epochs, as
// PyTorch's StepLR: after epoch t (Step called t times) the rate is
// base·Gamma^⌊t/StepSize⌋, base being the optimiser's rate when the
// schedule was made.
type StepLR struct {
	opt      LRSetter
	StepSize int
	Gamma    float64
	base     float64
	epoch    int
}

// NewStepLR returns a step schedule on opt. A step size below 1 or a
// negative or non-finite gamma panics with an error wrapping
// ErrHyperparameter.
func NewStepLR(opt LRSetter, stepSize int, gamma float64) *StepLR {
	if stepSize < 1 {
		panic(fmt.Errorf("nn: NewStepLR: stepSize = %d, want ≥ 1: %w", stepSize, ErrHyperparameter))
	}
	checkHyper("NewStepLR", "gamma", gamma, false)
	return &StepLR{opt: opt, StepSize: stepSize, Gamma: gamma, base: opt.LR()}
}

// Step ends an epoch and sets the rate for the next one.
func (s *StepLR) Step() {
	s.epoch++
	s.opt.SetLR(s.base * math.Pow(s.Gamma, float64(s.epoch/s.StepSize)))
}

// LR returns the optimiser's current learning rate.
func (s *StepLR) LR() float64 { return s.opt.LR() }

// CosineAnnealingLR anneals the learning rate from the optimiser's rate
// to MinLR along half a cosine over TMax epochs, as PyTorch's
// CosineAnnealingLR (without restarts): after epoch t the rate is
// MinLR + (base − MinLR)·(1 + cos(π·t/TMax))/2. After TMax epochs the
// cosine goes on, rising again, as PyTorch's closed form does.
type CosineAnnealingLR struct {
	opt   LRSetter
	TMax  int
	MinLR float64
	base  float64
	epoch int
}

// NewCosineAnnealingLR returns a cosine schedule on opt over tMax epochs
// down to minLR. A tMax below 1 or an invalid minLR panics with an error
// wrapping ErrHyperparameter.
func NewCosineAnnealingLR(opt LRSetter, tMax int, minLR float64) *CosineAnnealingLR {
	if tMax < 1 {
		panic(fmt.Errorf("nn: NewCosineAnnealingLR: tMax = %d, want ≥ 1: %w", tMax, ErrHyperparameter))
	}
	checkHyper("NewCosineAnnealingLR", "minLR", minLR, false)
	return &CosineAnnealingLR{opt: opt, TMax: tMax, MinLR: minLR, base: opt.LR()}
}

// Step ends an epoch and sets the rate for the next one.
func (s *CosineAnnealingLR) Step() {
	s.epoch++
	c := (1 + math.Cos(math.Pi*float64(s.epoch)/float64(s.TMax))) / 2
	s.opt.SetLR(s.MinLR + (s.base-s.MinLR)*c)
}

// LR returns the optimiser's current learning rate.
func (s *CosineAnnealingLR) LR() float64 { return s.opt.LR() }

// checkMode panics unless mode is "min" or "max".
func checkMode(op, mode string) {
	if mode != "min" && mode != "max" {
		panic(fmt.Errorf("nn: %s: mode %q, want \"min\" (a loss) or \"max\" (an accuracy): %w", op, mode, ErrHyperparameter))
	}
}

// plateau tracks the best value of a metric, as PyTorch's
// ReduceLROnPlateau does with a relative threshold.
type plateau struct {
	mode      string
	threshold float64
	best      float64
	bestEpoch int
	epoch     int
	bad       int // epochs since the last improvement
}

func newPlateau(mode string, threshold float64) plateau {
	best := math.Inf(1)
	if mode == "max" {
		best = math.Inf(-1)
	}
	return plateau{mode: mode, threshold: threshold, best: best, bestEpoch: -1}
}

// update records metric and reports whether it improved on the best by
// more than the threshold (relative: a loss must fall below
// best·(1−threshold), an accuracy rise above best·(1+threshold)). A NaN
// never improves.
func (p *plateau) update(metric float64) bool {
	p.epoch++
	better := metric < p.best*(1-p.threshold)
	if p.mode == "max" {
		better = metric > p.best*(1+p.threshold)
	}
	if math.IsInf(p.best, 0) && !math.IsNaN(metric) {
		better = true // the first finite value
	}
	if better {
		p.best, p.bestEpoch, p.bad = metric, p.epoch-1, 0
		return true
	}
	p.bad++
	return false
}

// ReduceLROnPlateau multiplies the learning rate by Factor when a metric
// has not improved for more than Patience epochs, as PyTorch's
// ReduceLROnPlateau (relative threshold 1e-4, no cooldown): Mode "min"
// for a loss, "max" for an accuracy. The rate never goes below MinLR.
type ReduceLROnPlateau struct {
	opt      LRSetter
	Factor   float64
	Patience int
	MinLR    float64
	p        plateau
}

// NewReduceLROnPlateau returns the schedule on opt. A mode other than
// "min" or "max", a factor outside [0, 1) or a negative patience panics
// with an error wrapping ErrHyperparameter.
func NewReduceLROnPlateau(opt LRSetter, mode string, factor float64, patience int) *ReduceLROnPlateau {
	checkMode("NewReduceLROnPlateau", mode)
	checkHyper("NewReduceLROnPlateau", "factor", factor, true)
	if patience < 0 {
		panic(fmt.Errorf("nn: NewReduceLROnPlateau: patience = %d, want ≥ 0: %w", patience, ErrHyperparameter))
	}
	return &ReduceLROnPlateau{opt: opt, Factor: factor, Patience: patience, p: newPlateau(mode, 1e-4)}
}

// Step records the epoch's metric and lowers the rate after more than
// Patience epochs without improvement; it returns the rate for the next
// epoch.
func (s *ReduceLROnPlateau) Step(metric float64) float64 {
	if !s.p.update(metric) && s.p.bad > s.Patience {
		s.opt.SetLR(math.Max(s.opt.LR()*s.Factor, s.MinLR))
		s.p.bad = 0
	}
	return s.opt.LR()
}

// LR returns the optimiser's current learning rate.
func (s *ReduceLROnPlateau) LR() float64 { return s.opt.LR() }

// EarlyStopping ends training when a validation metric has not improved
// for Patience epochs: Mode "max" for an accuracy, "min" for a loss, an
// improvement being any change beyond MinDelta. Step returns true when
// training should stop; Improved tells whether the last epoch was the
// best so far, the moment to keep the model's parameters (Save, or copy
// the tensors).
//
//	stop := nn.NewEarlyStopping(50, "max")
//	for epoch := 0; epoch < 1000; epoch++ {
//		// ... train, then measure val ...
//		if stop.Step(val) { break }
//		if stop.Improved() { test = nn.Accuracy(logits, ds.Y, ds.TestIdx) }
//	}
type EarlyStopping struct {
	Patience int
	MinDelta float64
	mode     string
	best     float64
	epoch    int
	bestAt   int
	improved bool
}

// NewEarlyStopping returns an early stopper with the given patience and
// mode ("max" or "min"). A patience below 1 or another mode panics with
// an error wrapping ErrHyperparameter.
func NewEarlyStopping(patience int, mode string) *EarlyStopping {
	checkMode("NewEarlyStopping", mode)
	if patience < 1 {
		panic(fmt.Errorf("nn: NewEarlyStopping: patience = %d, want ≥ 1: %w", patience, ErrHyperparameter))
	}
	best := math.Inf(1)
	if mode == "max" {
		best = math.Inf(-1)
	}
	return &EarlyStopping{Patience: patience, mode: mode, best: best, bestAt: -1}
}

// Step records the metric of one epoch and reports whether Patience
// epochs have passed since the best one (since the first epoch while no
// metric has improved: a run of NaNs stops too). A NaN never improves.
func (e *EarlyStopping) Step(metric float64) bool {
	better := metric < e.best-e.MinDelta
	if e.mode == "max" {
		better = metric > e.best+e.MinDelta
	}
	e.improved = better
	if better {
		e.best, e.bestAt = metric, e.epoch
	}
	e.epoch++
	// Epochs since the best (since the start while there is none).
	return e.epoch-1-e.bestAt >= e.Patience
}

// Improved reports whether the last Step set a new best.
func (e *EarlyStopping) Improved() bool { return e.improved }

// Best returns the best metric seen (±Inf before any).
func (e *EarlyStopping) Best() float64 { return e.best }

// BestEpoch returns the 0-based epoch of the best metric, −1 before any.
func (e *EarlyStopping) BestEpoch() int { return e.bestAt }
