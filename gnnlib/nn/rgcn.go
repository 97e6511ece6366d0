package nn

import (
	"fmt"
	"strings"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Layers on heterogeneous graphs (graph.HeteroGraph) take and return node
// features per node type, map[string]*tensor.Tensor, one row per node of
// the type.

// RGCNConv is the relational graph convolution of Schlichtkrull et al.
// with basis decomposition, as PyG's RGCNConv with aggr "mean":
//
//	h'_i = W_0·h_i + B + Σ_r (1/|N_r(i)|) Σ_{j ∈ N_r(i)} W_r·h_j,
//	W_r = Σ_b Coeffs[r,b]·Bases[b]
//
// over the relations r ending at i's node type, with one weight matrix per
// relation built from NumBases shared bases (fewer parameters than one
// free matrix per relation, and regularised). Every node type's input has
// the same width in (project different widths with a HeteroLinear
// first); W_0 and B are shared by all node types.
type RGCNConv struct {
	Mode
	Relations []graph.EdgeType
	// Bases is [NumBases, in·out]; Coeffs is [len(Relations), NumBases].
	Bases, Coeffs *tensor.Tensor
	// Root is W_0 [in, out]; B the bias [out].
	Root, B *tensor.Tensor
	in, out int
}

// NewRGCNConv returns an RGCN layer over the given relations with
// numBases bases (at most the number of relations; numBases ≤ 0 gives one
// basis per relation). Bases and the root weight are Glorot-initialised,
// the coefficients as PyTorch's Linear, the bias zero.
func NewRGCNConv(in, out int, relations []graph.EdgeType, numBases int) *RGCNConv {
	r := len(relations)
	if r == 0 {
		panic("nn: NewRGCNConv: no relations")
	}
	if numBases <= 0 || numBases > r {
		numBases = r
	}
	c := &RGCNConv{Relations: append([]graph.EdgeType(nil), relations...), in: in, out: out}
	bases := make([]float32, 0, numBases*in*out)
	for b := 0; b < numBases; b++ {
		w := tensor.Zeros(in, out)
		XavierUniform(w)
		bases = append(bases, w.Data()...)
	}
	c.Bases = param(tensor.Wrap(bases, numBases, in*out))
	c.Coeffs = newWeight(LeCunUniform, r, numBases)
	c.Root = newWeight(XavierUniform, in, out)
	c.B = param(tensor.Zeros(out))
	return c
}

// Forward computes the layer on h; x holds the features of every node type
// that is a source or a destination of the layer's relations. The result
// has a row block for every node type of x.
func (c *RGCNConv) Forward(h *graph.HeteroGraph, x map[string]*tensor.Tensor) map[string]*tensor.Tensor {
	weights := c.Coeffs.MatMul(c.Bases) // [R, in·out]
	out := make(map[string]*tensor.Tensor, len(x))
	for _, t := range h.NodeTypes() {
		if xt, ok := x[t]; ok {
			checkHetero("RGCNConv", t, xt, h.NumNodes(t), c.in)
			out[t] = xt.MatMul(c.Root).Add(c.B)
		}
	}
	for r, et := range c.Relations {
		g := h.Relation(et)
		if g == nil {
			panic(fmt.Sprintf("nn: RGCNConv: the graph has no relation %v", et))
		}
		xs, ok := x[et.Src]
		if !ok || out[et.Dst] == nil {
			panic(fmt.Sprintf("nn: RGCNConv: relation %v needs features of node types %q and %q", et, et.Src, et.Dst))
		}
		w := weights.Narrow(0, r, 1).Reshape(c.in, c.out)
		// The mean is linear: project first, so the graph pass is narrow.
		out[et.Dst] = out[et.Dst].Add(MeanAggregate(g, xs.MatMul(w)))
	}
	return out
}

func checkHetero(op, nodeType string, x *tensor.Tensor, n, in int) {
	if s := x.Shape(); len(s) != 2 || s[0] != n || (in > 0 && s[1] != in) {
		panic(&tensor.ShapeError{Op: op, A: s, B: []int{n, in}, Msg: fmt.Sprintf("features of node type %q", nodeType)})
	}
}

// Params returns Bases, Coeffs, Root and B.
func (c *RGCNConv) Params() []*tensor.Tensor {
	return []*tensor.Tensor{c.Bases, c.Coeffs, c.Root, c.B}
}

func (c *RGCNConv) String() string {
	return fmt.Sprintf("RGCNConv(%d, %d, relations=%d, bases=%d)", c.in, c.out, len(c.Relations), c.Bases.Size(0))
}

// HeteroConv runs one graph layer per relation and sums, for each
// destination node type, the outputs of the relations that end there (PyG's
// HeteroConv with aggr "sum"). A layer sees its relation in the layout of
// a sampled block (graph.HeteroGraph.Stacked): its x stacks the
// destination type's rows over the source type's, so root weights apply
// to the destinations and messages come from the sources; both types need
// the same feature width. Node types that no relation ends at are left
// out of the result, as in PyG. The attention layers add a self-loop to
// each destination, which attends to its own row.
type HeteroConv struct {
	Mode
	Relations []graph.EdgeType
	Convs     []GraphLayer
}

// NewHeteroConv returns a HeteroConv running convs[i] on relations[i].
func NewHeteroConv(relations []graph.EdgeType, convs []GraphLayer) *HeteroConv {
	if len(relations) != len(convs) || len(convs) == 0 {
		panic(fmt.Sprintf("nn: NewHeteroConv: %d relations, %d layers: want one layer per relation", len(relations), len(convs)))
	}
	return &HeteroConv{Relations: append([]graph.EdgeType(nil), relations...), Convs: append([]GraphLayer(nil), convs...)}
}

// Forward runs every relation's layer and sums per destination type.
func (c *HeteroConv) Forward(h *graph.HeteroGraph, x map[string]*tensor.Tensor) map[string]*tensor.Tensor {
	out := map[string]*tensor.Tensor{}
	for i, et := range c.Relations {
		g := h.Stacked(et)
		if g == nil {
			panic(fmt.Sprintf("nn: HeteroConv: the graph has no relation %v", et))
		}
		xd, okD := x[et.Dst]
		xs, okS := x[et.Src]
		if !okD || !okS {
			panic(fmt.Sprintf("nn: HeteroConv: relation %v needs features of node types %q and %q", et, et.Src, et.Dst))
		}
		in := xd
		if et.Src != et.Dst {
			if xd.Size(1) != xs.Size(1) {
				panic(&tensor.ShapeError{Op: "HeteroConv", A: xd.Shape(), B: xs.Shape(), Msg: fmt.Sprintf("relation %v: destination and source features need one width", et)})
			}
			in = tensor.Concat(0, xd, xs)
		}
		y := c.Convs[i].Forward(g, in)
		if prev, ok := out[et.Dst]; ok {
			y = prev.Add(y)
		}
		out[et.Dst] = y
	}
	return out
}

// Params returns the layers' parameters in relation order.
func (c *HeteroConv) Params() []*tensor.Tensor {
	ms := make([]Module, len(c.Convs))
	for i, m := range c.Convs {
		ms[i] = m
	}
	return collect(ms...)
}

// SetTraining sets the mode of the wrapper and its layers.
func (c *HeteroConv) SetTraining(on bool) {
	c.Mode.SetTraining(on)
	for _, m := range c.Convs {
		m.SetTraining(on)
	}
}

// Train switches to training mode.
func (c *HeteroConv) Train() { c.SetTraining(true) }

// Eval switches to evaluation mode.
func (c *HeteroConv) Eval() { c.SetTraining(false) }

func (c *HeteroConv) String() string {
	var s strings.Builder
	s.WriteString("HeteroConv(\n")
	for i, et := range c.Relations {
		fmt.Fprintf(&s, "  %v: %v\n", et, c.Convs[i])
	}
	s.WriteString(")")
	return s.String()
}

// HeteroLinear applies one Linear layer per node type, mapping each
// type's features (of its own width) to a common width, the usual first
// layer of a heterogeneous GNN.
type HeteroLinear struct {
	Mode
	Types  []string
	Layers []*Linear
}

// NewHeteroLinear returns Linear layers from in[i] features of node type
// types[i] to out.
func NewHeteroLinear(types []string, in []int, out int) *HeteroLinear {
	if len(types) != len(in) {
		panic(fmt.Sprintf("nn: NewHeteroLinear: %d types, %d widths", len(types), len(in)))
	}
	l := &HeteroLinear{Types: append([]string(nil), types...)}
	for _, n := range in {
		l.Layers = append(l.Layers, NewLinear(n, out))
	}
	return l
}

// Forward maps every node type it has a layer for; other types of x are
// left out.
func (l *HeteroLinear) Forward(x map[string]*tensor.Tensor) map[string]*tensor.Tensor {
	out := make(map[string]*tensor.Tensor, len(l.Types))
	for i, t := range l.Types {
		if xt, ok := x[t]; ok {
			out[t] = l.Layers[i].Forward(xt)
		}
	}
	return out
}

// Params returns the layers' parameters in type order.
func (l *HeteroLinear) Params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, m := range l.Layers {
		ps = append(ps, m.Params()...)
	}
	return ps
}

// HeteroFeatures returns the features of every node type of h that has
// them, as tensors for the heterogeneous layers.
func HeteroFeatures(h *graph.HeteroGraph) map[string]*tensor.Tensor {
	x := map[string]*tensor.Tensor{}
	for _, t := range h.NodeTypes() {
		if data, f := h.Features(t); f > 0 {
			x[t] = tensor.FromSlice(data, h.NumNodes(t), f)
		}
	}
	return x
}

// HeteroReLU applies ReLU to every node type's features.
func HeteroReLU(x map[string]*tensor.Tensor) map[string]*tensor.Tensor {
	out := make(map[string]*tensor.Tensor, len(x))
	for t, v := range x {
		out[t] = v.ReLU()
	}
	return out
}
