package nn

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// WeightedSpMM is SpMM with differentiable edge weights: row v of the
// result is Σ_{e=u→v} w[e]·x[u], w holding one weight per edge of g in
// edge-id order. The gradient reaches both x and w (dw[e] = <x[u],
// dout[v]>), which is what an edge mask needs. It runs on the CPU.
func WeightedSpMM(g *graph.Graph, w, x *tensor.Tensor) *tensor.Tensor {
	if x.IsOnDevice() || w.IsOnDevice() {
		notOnDevice("WeightedSpMM", x)
	}
	start := tensor.OpStart()
	f := checkNodes("WeightedSpMM", x, g.NumSrc())
	if w.Len() != g.NumEdges() || w.IsSparse() {
		panic(&tensor.ShapeError{Op: "WeightedSpMM", A: w.Shape(), B: []int{g.NumEdges()}, Msg: "needs one weight per edge"})
	}
	wd, xd := w.Data(), x.Data()
	out := make([]float32, g.NumNodes()*f)
	g.SpMM(out, xd, f, wd)
	return tensor.NewGraphOpSince(start, "WeightedSpMM", g.NumEdges(), tensor.Wrap(out, g.NumNodes(), f), []*tensor.Tensor{w, x}, func(grad *tensor.Tensor) []*tensor.Tensor {
		var dw, dx *tensor.Tensor
		if w.RequiresGrad() {
			d := make([]float32, g.NumEdges())
			g.SDDMM(d, xd, grad.Data(), 1, f)
			dw = tensor.Wrap(d, w.Shape()...)
		}
		if x.RequiresGrad() {
			d := make([]float32, g.NumSrc()*f)
			g.SpMMT(d, grad.Data(), f, wd)
			dx = tensor.Wrap(d, g.NumSrc(), f)
		}
		return []*tensor.Tensor{dw, dx}
	})
}

// normMap gives, for each edge of g.GCNNorm(), the id of the same edge in
// g, or g.NumEdges() for a self-loop that the normalisation added.
var normMaps graphMemo[[]int]

func normEdgeMap(g *graph.Graph) []int {
	return normMaps.get(g, func() []int {
		a := g.GCNNorm()
		m := make([]int, a.NumEdges())
		for v := 0; v < a.NumNodes(); v++ {
			p, end := g.Indptr[v], g.Indptr[v+1]
			for q := a.Indptr[v]; q < a.Indptr[v+1]; q++ {
				if p < end && g.Indices[p] == a.Indices[q] {
					m[q] = p
					p++
				} else {
					m[q] = g.NumEdges()
				}
			}
		}
		return m
	})
}

// ForwardMasked is Forward with each message of an edge of g scaled by
// mask[e] (one entry per edge of g, in edge-id order), the self-loops the
// normalisation adds left unscaled, as PyG's explain hook does. The
// gradient reaches the mask.
func (c *GCNConv) ForwardMasked(g *graph.Graph, x, mask *tensor.Tensor) *tensor.Tensor {
	if mask.Len() != g.NumEdges() {
		panic(&tensor.ShapeError{Op: "GCNConv.ForwardMasked", A: mask.Shape(), B: []int{g.NumEdges()}, Msg: "needs one mask entry per edge"})
	}
	a := g.GCNNorm()
	padded := tensor.Concat(0, mask.Reshape(g.NumEdges(), 1), tensor.Ones(1, 1))
	w := padded.IndexSelect(normEdgeMap(g)).Reshape(a.NumEdges()).Mul(tensor.FromSlice(a.Weights, a.NumEdges()))
	return WeightedSpMM(a, w, x.MatMul(c.W)).Add(c.B)
}

// ExplainerOptions configure ExplainNode; zero fields take PyG's
// GNNExplainer defaults.
type ExplainerOptions struct {
	// Epochs (100) of Adam with learning rate LR (0.01).
	Epochs int
	LR     float64
	// Hops is the model's number of message-passing layers: the
	// explanation covers the node's Hops-hop neighbourhood (3).
	Hops int
	// EdgeSize (0.005) weighs the sum of the edge mask, EdgeEntropy (1)
	// the mean entropy of its entries; FeatSize (1) and FeatEntropy (0.1)
	// do the same for the feature mask (mean, not sum).
	EdgeSize, EdgeEntropy, FeatSize, FeatEntropy float64
	// Seed fixes the masks' random start.
	Seed int64
}

// Explanation is GNNExplainer's answer for one node.
type Explanation struct {
	// Node is the explained node and Class the model's prediction for it,
	// which the masks were trained to keep.
	Node, Class int
	// EdgeMask holds sigmoid(mask) for every edge of the graph, in edge-id
	// order; edges outside the neighbourhood get values but no gradient
	// from the prediction, so only Edges are meaningful.
	EdgeMask []float32
	// FeatMask holds sigmoid(mask) per feature column.
	FeatMask []float32
	// Nodes lists the node's Hops-hop neighbourhood (increasing ids) and
	// Edges the ids of the edges among them.
	Nodes, Edges []int
}

// Top returns the ids of the k edges of the neighbourhood with the largest
// mask, largest first (all of them if there are fewer).
func (e *Explanation) Top(k int) []int {
	ids := append([]int(nil), e.Edges...)
	sort.SliceStable(ids, func(i, j int) bool { return e.EdgeMask[ids[i]] > e.EdgeMask[ids[j]] })
	return ids[:min(k, len(ids))]
}

// ErrExplain is wrapped by the errors of ExplainNode.
var ErrExplain = errors.New("nn: bad explanation request")

// ExplainNode runs GNNExplainer (Ying et al. 2019) for node classification:
// it learns a soft mask over the edges of g and one over the feature
// columns of x such that the model, run with them, keeps its prediction
// for node — cross-entropy against that prediction — while the masks stay
// small and near 0 or 1 (the paper's size and entropy regularisers, with
// PyG's coefficients by default). model is the trained network run with an
// edge mask (a tensor of one entry per edge of g, values in (0, 1)), for
// instance one built from GCNConv.ForwardMasked; it must return logits
// with one row per node. The model's parameters keep their values, but
// Backward accumulates into their gradients (an optimiser's ZeroGrad
// clears them).
func ExplainNode(model func(g *graph.Graph, x, edgeMask *tensor.Tensor) *tensor.Tensor, g *graph.Graph, x *tensor.Tensor, node int, o ExplainerOptions) (*Explanation, error) {
	if node < 0 || node >= g.NumNodes() {
		return nil, fmt.Errorf("nn: ExplainNode: node %d of %d: %w", node, g.NumNodes(), ErrExplain)
	}
	if x.Dims() != 2 || x.Size(0) != g.NumNodes() || x.IsOnDevice() {
		return nil, fmt.Errorf("nn: ExplainNode: features of shape %v for %d nodes (dense or sparse, on the CPU): %w", x.Shape(), g.NumNodes(), ErrExplain)
	}
	if o.Epochs == 0 {
		o.Epochs = 100
	}
	if o.LR == 0 {
		o.LR = 0.01
	}
	if o.Hops == 0 {
		o.Hops = 3
	}
	if o.EdgeSize == 0 {
		o.EdgeSize = 0.005
	}
	if o.EdgeEntropy == 0 {
		o.EdgeEntropy = 1
	}
	if o.FeatSize == 0 {
		o.FeatSize = 1
	}
	if o.FeatEntropy == 0 {
		o.FeatEntropy = 0.1
	}
	if o.Epochs < 0 || o.LR < 0 || o.Hops < 0 {
		return nil, fmt.Errorf("nn: ExplainNode: epochs %d, lr %g, hops %d: %w", o.Epochs, o.LR, o.Hops, ErrExplain)
	}
	_, nodes, _, err := g.KHopSubgraph([]int{node}, o.Hops)
	if err != nil {
		return nil, err
	}
	_, edges, err := g.Subgraph(nodes)
	if err != nil {
		return nil, err
	}
	if x.IsSparse() {
		x = x.ToDense()
	}
	e, f := g.NumEdges(), x.Size(1)
	ones := tensor.Ones(e)
	var class int
	tensor.NoGrad(func() { class = model(g, x, ones).Narrow(0, node, 1).ArgMax(1)[0] })

	// PyG's initialisation: edge logits N(1, std) with std from the ReLU
	// gain and the node count, feature logits N(0, 0.1).
	rng := tensor.NewRNG(o.Seed)
	n := float64(g.NumNodes())
	std := math.Sqrt2 * math.Sqrt(2/(2*n))
	edgeLogit := rng.Normal(1, float32(std), e).SetRequiresGrad(true)
	featLogit := rng.Normal(0, 0.1, 1, f).SetRequiresGrad(true)
	opt := NewAdam([]*tensor.Tensor{edgeLogit, featLogit}, o.LR, 0)
	label := []int{class}
	entropy := func(m *tensor.Tensor) *tensor.Tensor {
		const eps = 1e-15
		return m.AddScalar(eps).Log().Mul(m).Add(m.Neg().AddScalar(1 + eps).Log().Mul(m.Neg().AddScalar(1))).Neg().Mean()
	}
	for epoch := 0; epoch < o.Epochs; epoch++ {
		em := edgeLogit.Sigmoid()
		fm := featLogit.Sigmoid()
		logits := model(g, x.Mul(fm), em).Narrow(0, node, 1)
		loss := CrossEntropy(logits, label, nil).
			Add(em.Sum().MulScalar(float32(o.EdgeSize))).
			Add(entropy(em).MulScalar(float32(o.EdgeEntropy))).
			Add(fm.Mean().MulScalar(float32(o.FeatSize))).
			Add(entropy(fm).MulScalar(float32(o.FeatEntropy)))
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	ex := &Explanation{Node: node, Class: class, Nodes: nodes, Edges: edges}
	tensor.NoGrad(func() {
		ex.EdgeMask = append([]float32(nil), edgeLogit.Sigmoid().Data()...)
		ex.FeatMask = append([]float32(nil), featLogit.Sigmoid().Data()...)
	})
	return ex, nil
}
