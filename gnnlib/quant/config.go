package quant

import (
	"errors"
	"fmt"
)

// ErrUnsupported is wrapped by errors about a model or layer the package
// cannot quantize.
var ErrUnsupported = errors.New("quant: unsupported")

// ErrNotConverted is wrapped by the error of an integer forward pass on a
// model that has not been converted yet.
var ErrNotConverted = errors.New("quant: model not converted (call Convert after calibration)")

// Config chooses how a model is quantized. The zero value is INT8 weights
// (symmetric, per output channel) and INT8 affine activations with
// min-max calibration, every layer quantized.
type Config struct {
	// Bits of the weights: 8 or 4 (0 means 8). Activations are INT8.
	Bits int
	// PerTensorWeights uses one scale per weight tensor instead of one per
	// output channel.
	PerTensorWeights bool
	// SymmetricActivations quantizes layer inputs symmetrically instead of
	// with the affine scheme (which suits the non-negative ReLU outputs).
	SymmetricActivations bool
	// Observer makes the observer of each quantized activation; nil means
	// MinMax. QAT updates the observers on every training forward pass,
	// so MovingAverage suits it.
	Observer func() Observer
	// KeepFirst and KeepLast keep the first and the last weighted layer in
	// float32 (mixed precision): they are the most sensitive ones.
	KeepFirst, KeepLast bool
	// DegreeQuant turns on Degree-Quant's protection of high in-degree
	// nodes during QAT of a GNN; nil leaves it off.
	DegreeQuant *DegreeQuant
}

func (c Config) bits() int {
	if c.Bits == 0 {
		return 8
	}
	return c.Bits
}

func (c Config) check() error {
	return checkBits(c.bits())
}

func (c Config) newObserver() Observer {
	if c.Observer != nil {
		return c.Observer()
	}
	return &MinMax{}
}

func (c Config) actScheme() Scheme {
	if c.SymmetricActivations {
		return Symmetric
	}
	return Affine
}

func (c Config) String() string {
	w := "per-channel"
	if c.PerTensorWeights {
		w = "per-tensor"
	}
	return fmt.Sprintf("W%dA8 (%s weights, %v activations)", c.bits(), w, c.actScheme())
}
