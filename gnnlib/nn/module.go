package nn

import (
	"sync"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Module is anything with parameters and a training mode. Every layer and
// model of the package implements it, and so may a type declared in a
// notebook cell.
type Module interface {
	// Params returns the tensors an optimiser updates, in a fixed order.
	Params() []*tensor.Tensor
	// SetTraining switches between training (dropout active, batch
	// statistics) and evaluation behaviour.
	SetTraining(on bool)
}

// Layer is a Module that maps one tensor to another. Sequential chains
// Layers. A type declared in a notebook cell that has these three methods
// is a Layer and trains like a built-in one: the interpreter can only
// hand compiled code the methods of the interface it converts to, which
// is why Params and SetTraining are part of Layer rather than discovered.
type Layer interface {
	Module
	Forward(x *tensor.Tensor) *tensor.Tensor
}

// GraphLayer is a Module that maps node features on a graph to new node
// features: GCNConv, SAGEConv, GATConv, GATv2Conv, GINConv and the ready
// GNN models.
type GraphLayer interface {
	Module
	Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor
}

// Mode holds a training flag; the package's layers embed it. The zero
// value is training mode, as a fresh PyTorch module is.
type Mode struct {
	eval bool
}

// SetTraining sets the mode: true for training, false for evaluation.
func (m *Mode) SetTraining(on bool) { m.eval = !on }

// Training reports whether the module is in training mode.
func (m *Mode) Training() bool { return !m.eval }

// Train switches to training mode.
func (m *Mode) Train() { m.eval = false }

// Eval switches to evaluation mode.
func (m *Mode) Eval() { m.eval = true }

// NoParams is embedded by layers without parameters.
type NoParams struct{}

// Params returns nil.
func (NoParams) Params() []*tensor.Tensor { return nil }

// The package's random source: parameter initialisation and the seeds of
// dropout layers draw from it, so Seed before building a model makes
// training reproducible.
var (
	rngMu sync.Mutex
	rng   = tensor.NewRNG(0)
)

// Seed reseeds the package's random source. Models built after Seed(n)
// with the same n start from the same parameters and draw the same
// dropout masks. The source starts as if seeded with 0.
func Seed(n int64) {
	rngMu.Lock()
	rng = tensor.NewRNG(n)
	rngMu.Unlock()
}

// withRNG runs f with the package's random source locked.
func withRNG(f func(r *tensor.RNG)) {
	rngMu.Lock()
	defer rngMu.Unlock()
	f(rng)
}

// newLayerRNG returns a generator for one layer's dropout masks, seeded
// from the package's source, so a layer's masks do not depend on what
// other layers draw.
func newLayerRNG() *tensor.RNG {
	var s int64
	withRNG(func(r *tensor.RNG) { s = int64(r.Float64() * (1 << 53)) })
	return tensor.NewRNG(s)
}

// collect concatenates the parameters of modules.
func collect(ms ...Module) []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, m := range ms {
		if m != nil {
			ps = append(ps, m.Params()...)
		}
	}
	return ps
}

// param marks t as a parameter.
func param(t *tensor.Tensor) *tensor.Tensor { return t.SetRequiresGrad(true) }
