package nn

import (
	"fmt"
	"strings"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// NewMLP returns a multi-layer perceptron: Linear layers between the given
// sizes with a ReLU after every layer but the last. NewMLP(784, 128, 10)
// has two layers.
func NewMLP(sizes ...int) *Sequential {
	if len(sizes) < 2 {
		panic(fmt.Sprintf("nn: NewMLP(%v): need at least an input and an output size", sizes))
	}
	s := NewSequential()
	for i := 0; i+1 < len(sizes); i++ {
		s.Add(NewLinear(sizes[i], sizes[i+1]))
		if i+2 < len(sizes) {
			s.Add(ReLU())
		}
	}
	return s
}

// NewLeNet5 returns LeCun's LeNet-5 for 1×28×28 digits with ReLU and max
// pooling (which train faster than the original tanh and average pooling):
// conv 6@5×5 padding 2, pool 2, conv 16@5×5, pool 2, then dense layers
// 400→120→84→10. It outputs logits.
func NewLeNet5() *Sequential {
	return NewSequential(
		NewConv2D(1, 6, 5, 1, 2), ReLU(), MaxPool2D(2, 2),
		NewConv2D(6, 16, 5, 1, 0), ReLU(), MaxPool2D(2, 2),
		NewFlatten(),
		NewLinear(16*5*5, 120), ReLU(),
		NewLinear(120, 84), ReLU(),
		NewLinear(84, 10),
	)
}

// gnnBase is embedded by the ready GNN models: it holds their modules, so
// that Params and the training mode reach all of them, and the model's
// own dropout generator.
type gnnBase struct {
	Mode
	modules []Module
	rng     *tensor.RNG
}

// Params returns the parameters of the model's layers in order.
func (b *gnnBase) Params() []*tensor.Tensor { return collect(b.modules...) }

// SetTraining sets the mode of the model and all its layers.
func (b *gnnBase) SetTraining(on bool) {
	b.Mode.SetTraining(on)
	for _, m := range b.modules {
		m.SetTraining(on)
	}
}

// Train switches the model to training mode.
func (b *gnnBase) Train() { b.SetTraining(true) }

// Eval switches the model to evaluation mode.
func (b *gnnBase) Eval() { b.SetTraining(false) }

func (b *gnnBase) describe(name string) string {
	var s strings.Builder
	s.WriteString(name + "(\n")
	for _, m := range b.modules {
		fmt.Fprintf(&s, "  %v\n", m)
	}
	s.WriteString(")")
	return s.String()
}

func (b *gnnBase) drop(x *tensor.Tensor, p float32) *tensor.Tensor {
	return dropout(x, p, b.rng, b.Training())
}

// reluDrop is drop(x.ReLU(), p), one op on a device with ReLUDropoutOps.
func (b *gnnBase) reluDrop(x *tensor.Tensor, p float32) *tensor.Tensor {
	if !b.Training() || p == 0 || !x.IsOnDevice() || x.IsSparse() {
		return b.drop(x.ReLU(), p)
	}
	return reluDropout(x, p, b.rng)
}

// GCN is the two-layer graph convolutional network of Kipf and Welling:
// dropout, GCNConv, ReLU, dropout, GCNConv. It outputs logits.
type GCN struct {
	gnnBase
	Conv1, Conv2 *GCNConv
	// Dropout is the probability applied to the input and hidden features
	// (0.5).
	Dropout float32
}

// NewGCN returns a GCN from in features through hidden units to out
// classes.
func NewGCN(in, hidden, out int) *GCN {
	m := &GCN{Conv1: NewGCNConv(in, hidden), Conv2: NewGCNConv(hidden, out), Dropout: 0.5}
	m.modules = []Module{m.Conv1, m.Conv2}
	m.rng = newLayerRNG()
	return m
}

// Forward returns the logits of every node of g. On a device the first
// layer applies its ReLU and dropout in its own pass
// (ForwardReLUDropout's fused op; FuseLayerActivation).
func (m *GCN) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	x = m.drop(x, m.Dropout)
	h := fusedReLUDropout(m.Conv1, g, x, m.Dropout, m.rng, m.Training())
	if h == nil {
		h = m.reluDrop(m.Conv1.Forward(g, x), m.Dropout)
	}
	return m.Conv2.Forward(g, h)
}

func (m *GCN) String() string { return m.describe("GCN") }

// GraphSAGE is a two-layer GraphSAGE network: dropout, SAGEConv, ReLU,
// dropout, SAGEConv.
type GraphSAGE struct {
	gnnBase
	Conv1, Conv2 *SAGEConv
	Dropout      float32
}

// NewGraphSAGE returns a GraphSAGE network with aggregation aggr ("mean"
// or "max") and dropout 0.5.
func NewGraphSAGE(in, hidden, out int, aggr string) *GraphSAGE {
	m := &GraphSAGE{Conv1: NewSAGEConv(in, hidden, aggr), Conv2: NewSAGEConv(hidden, out, aggr), Dropout: 0.5}
	m.modules = []Module{m.Conv1, m.Conv2}
	m.rng = newLayerRNG()
	return m
}

// Forward returns the logits of every node of g.
func (m *GraphSAGE) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	h := m.reluDrop(m.Conv1.Forward(g, m.drop(x, m.Dropout)), m.Dropout)
	return m.Conv2.Forward(g, h)
}

func (m *GraphSAGE) String() string { return m.describe("GraphSAGE") }

// GAT is the graph attention network of Veličković et al. for
// transductive node classification: dropout, GATConv with several
// concatenated heads, ELU, dropout, GATConv with one output head; dropout
// 0.6 on features and attention.
type GAT struct {
	gnnBase
	Conv1, Conv2 *GATConv
	Dropout      float32
}

// NewGAT returns a GAT with heads heads of hidden units each in its first
// layer (the paper's Cora model: NewGAT(1433, 8, 8, 7)).
func NewGAT(in, hidden, heads, out int) *GAT {
	m := &GAT{Conv1: NewGATConv(in, hidden, heads, true, 0.6), Dropout: 0.6}
	m.Conv2 = NewGATConv(hidden*heads, out, 1, false, 0.6)
	m.modules = []Module{m.Conv1, m.Conv2}
	m.rng = newLayerRNG()
	return m
}

// Forward returns the logits of every node of g.
func (m *GAT) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	h := m.Conv1.Forward(g, m.drop(x, m.Dropout)).ELU(1)
	return m.Conv2.Forward(g, m.drop(h, m.Dropout))
}

func (m *GAT) String() string { return m.describe("GAT") }

// GIN is a graph isomorphism network for node classification: layers
// GINConv blocks, each with a two-layer MLP and a ReLU after it, dropout
// 0.5, then a Linear read-out.
type GIN struct {
	gnnBase
	Convs   []*GINConv
	Out     *Linear
	Dropout float32
}

// NewGIN returns a GIN with the given number of GINConv layers (ε fixed
// at 0, as GIN-0).
func NewGIN(in, hidden, out, layers int) *GIN {
	m := &GIN{Dropout: 0.5}
	d := in
	for i := 0; i < layers; i++ {
		c := NewGINConv(NewMLP(d, hidden, hidden), 0, false)
		m.Convs = append(m.Convs, c)
		m.modules = append(m.modules, c)
		d = hidden
	}
	m.Out = NewLinear(d, out)
	m.modules = append(m.modules, m.Out)
	m.rng = newLayerRNG()
	return m
}

// Forward returns the logits of every node of g.
func (m *GIN) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	for _, c := range m.Convs {
		x = m.drop(c.Forward(g, x).ReLU(), m.Dropout)
	}
	return m.Out.Forward(x)
}

func (m *GIN) String() string { return m.describe("GIN") }
