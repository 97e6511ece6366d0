package devicetest

import (
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// chain is graph layers with an activation and dropout p (0: none)
// between them, as a notebook would write a GNN.
type chain struct {
	nn.Mode
	convs []nn.GraphLayer
	act   func(x *tensor.Tensor) *tensor.Tensor
	p     float32
}

func elu(x *tensor.Tensor) *tensor.Tensor { return x.ELU(1) }

// GCN returns a GCN of the given number of GCNConv layers from in to out
// features through hidden ones, with ReLU and dropout p (0: none) between
// them.
func GCN(in, hidden, out, layers int, p float32) nn.GraphLayer {
	m := &chain{act: (*tensor.Tensor).ReLU, p: p}
	for i := range layers {
		a, b := hidden, hidden
		if i == 0 {
			a = in
		}
		if i == layers-1 {
			b = out
		}
		m.convs = append(m.convs, nn.NewGCNConv(a, b))
	}
	return m
}

// GATv2 returns a stack of GATv2Conv layers (heads of hidden channels,
// concatenated; one head of out channels last) with ELU and dropout p
// between them.
func GATv2(in, hidden, heads, out, layers int, p float32) nn.GraphLayer {
	m := &chain{act: elu, p: p}
	for i := range layers {
		a, c, h := hidden*heads, hidden, heads
		if i == 0 {
			a = in
		}
		if i == layers-1 {
			c, h = out, 1
		}
		m.convs = append(m.convs, nn.NewGATv2Conv(a, c, h, true, 0))
	}
	return m
}

// stack returns layers with ELU between them.
func stack(layers ...nn.GraphLayer) nn.GraphLayer { return &chain{convs: layers, act: elu} }

func (m *chain) Params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, c := range m.convs {
		ps = append(ps, c.Params()...)
	}
	return ps
}

func (m *chain) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	drop := nn.NewDropout(max(m.p, 1e-9))
	drop.SetTraining(m.Training() && m.p > 0)
	for i, c := range m.convs {
		x = c.Forward(g, x)
		if i < len(m.convs)-1 {
			x = drop.Forward(m.act(x))
		}
	}
	return x
}
