package nn

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/graph/kernels"
	"github.com/gnnlab/gnnlab/gnnlib/interrupt"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// WeightedSpMM is SpMM with differentiable edge weights: row v of the
// result is Σ_{e=u→v} w[e]·x[u], w holding one weight per edge of g in
// edge-id order. The gradient reaches both x and w (dw[e] = <x[u],
// dout[v]>), which is what an edge mask needs. It runs on the CPU.
func WeightedSpMM(g *graph.Graph, w, x *tensor.Tensor) *tensor.Tensor {
	if x.IsOnDevice() || w.IsOnDevice() {
		notOnDevice("WeightedSpMM", x)
	}
	start := backend.OpStart()
	f := checkNodes("WeightedSpMM", x, g.NumSrc())
	if w.Len() != g.NumEdges() || w.IsSparse() {
		panic(&tensor.ShapeError{Op: "WeightedSpMM", A: w.Shape(), B: []int{g.NumEdges()}, Msg: "needs one weight per edge"})
	}
	wd, xd := w.Data(), x.Data()
	out := make([]float32, g.NumNodes()*f)
	kernels.SpMM(g, out, xd, f, wd)
	return backend.NewGraphOpSince(start, "WeightedSpMM", g.NumEdges(), tensor.Wrap(out, g.NumNodes(), f), []*tensor.Tensor{w, x}, func(grad *tensor.Tensor) []*tensor.Tensor {
		var dw, dx *tensor.Tensor
		if w.RequiresGrad() {
			d := make([]float32, g.NumEdges())
			kernels.SDDMM(g, d, xd, grad.Data(), 1, f)
			dw = tensor.Wrap(d, w.Shape()...)
		}
		if x.RequiresGrad() {
			d := make([]float32, g.NumSrc()*f)
			kernels.SpMMT(g, d, grad.Data(), f, wd)
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

// ForwardWeighted is Forward on g with its edges weighted by w (one
// differentiable entry per edge of g, in edge-id order, times the graph's
// own weights if it has any), the normalisation taken from the weighted
// degrees: out = D̃^−½ (A_w + I) D̃^−½ x·W + B with D̃_vv = 1 + Σ_{u→v}
// w_uv, as PyG's GCNConv with an edge_weight. A weight of 0 removes the
// edge, degrees included, which makes it the faithful way to run a
// GNNExplainer mask through the layer (ForwardMasked keeps the degrees
// of g). The gradient reaches w. g must be square.
func (c *GCNConv) ForwardWeighted(g *graph.Graph, x, w *tensor.Tensor) *tensor.Tensor {
	if w.Len() != g.NumEdges() {
		panic(&tensor.ShapeError{Op: "GCNConv.ForwardWeighted", A: w.Shape(), B: []int{g.NumEdges()}, Msg: "needs one weight per edge"})
	}
	a := g.GCNNorm() // the structure of g with self-loops
	w = w.Reshape(g.NumEdges())
	if g.Weights != nil {
		w = w.Mul(tensor.FromSlice(g.Weights, g.NumEdges()))
	}
	aw := tensor.Concat(0, w.Reshape(g.NumEdges(), 1), tensor.Ones(1, 1)).IndexSelect(normEdgeMap(g)).Reshape(a.NumEdges())
	dinv := WeightedSpMM(a, aw, tensor.Ones(a.NumNodes(), 1)).Pow(-0.5)
	return WeightedSpMM(a, aw, x.MatMul(c.W).Mul(dinv)).Mul(dinv).Add(c.B)
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
	// EdgesOnly learns the edge mask alone, leaving the features as they
	// are and FeatMask nil: for features that carry nothing to explain,
	// such as BA-Shapes' constant ones, which a feature mask could only
	// rescale.
	EdgesOnly bool
	// Seed fixes the masks' random start.
	Seed int64
}

// Explanation is GNNExplainer's answer for one node.
type Explanation struct {
	// Node is the explained node and Class the model's prediction for it,
	// which the masks were trained to keep.
	Node, Class int
	// EdgeMask holds sigmoid(mask) for every edge of the graph, in edge-id
	// order: 0 for the edges outside Edges, whose mask cannot reach the
	// prediction.
	EdgeMask []float32
	// FeatMask holds sigmoid(mask) per feature column (nil with
	// EdgesOnly).
	FeatMask []float32
	// Nodes lists the node's Hops-hop neighbourhood (increasing ids).
	// Edges lists, in increasing id, the edges that carry a message to the
	// prediction (those into a node within Hops−1 hops) and, on a
	// symmetric graph, their reverses, which share their mask.
	Nodes, Edges []int
}

// Top returns the ids of the k edges of Edges with the largest mask,
// largest first (all of them if there are fewer).
func (e *Explanation) Top(k int) []int {
	ids := append([]int(nil), e.Edges...)
	sort.SliceStable(ids, func(i, j int) bool { return e.EdgeMask[ids[i]] > e.EdgeMask[ids[j]] })
	return ids[:min(k, len(ids))]
}

// ErrExplain is wrapped by the errors of ExplainNode.
var ErrExplain = errors.New("nn: bad explanation request")

// computation is the part of a graph that one node's prediction by a
// model of hops layers reads.
type computation struct {
	// sub holds every node within hops+1 hops of the node (nodes[i] is
	// node i of sub, in increasing id) and every edge of g into a node
	// within hops hops, so that those nodes keep their degrees; eid[j] is
	// the id in g of edge j of sub.
	sub        *graph.Graph
	nodes, eid []int
	// root is the node's position in nodes, within those of the nodes
	// within hops hops.
	root   int
	within []int
	// param[j] is the mask entry of edge j of sub, or nParams for an edge
	// whose mask cannot reach the prediction (it stays 1).
	param   []int
	nParams int
}

// computationOf builds the computation of node. An edge u→v carries a
// message to the prediction when v lies within hops−1 hops; symmetric ties
// the mask of v→u to it.
func computationOf(g *graph.Graph, node, hops int, symmetric bool) *computation {
	n := g.NumNodes()
	dist := make([]int, n)
	for i := range dist {
		dist[i] = -1
	}
	dist[node] = 0
	frontier := []int{node}
	for d := 1; d <= hops+1 && len(frontier) > 0; d++ {
		var next []int
		for _, v := range frontier {
			for _, u := range g.Neighbors(v) {
				if dist[u] < 0 {
					dist[u] = d
					next = append(next, u)
				}
			}
		}
		frontier = next
	}
	c := &computation{}
	local := make([]int, n)
	for v := range n {
		local[v] = -1
		if dist[v] >= 0 {
			local[v] = len(c.nodes)
			c.nodes = append(c.nodes, v)
			if dist[v] <= hops {
				c.within = append(c.within, local[v])
			}
		}
	}
	c.root = local[node]
	indptr := make([]int, 1, len(c.nodes)+1)
	var indices []int
	var w []float32
	param := map[int]int{} // edge id in g → mask entry
	for _, v := range c.nodes {
		if dist[v] <= hops {
			for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
				u := g.Indices[e]
				indices = append(indices, local[u])
				c.eid = append(c.eid, e)
				if g.Weights != nil {
					w = append(w, g.Weights[e])
				}
				if dist[v] >= hops {
					continue
				}
				if _, ok := param[e]; !ok {
					param[e] = c.nParams
					c.nParams++
				}
				if r := reverseEdge(g, u, v); symmetric && r >= 0 {
					if _, ok := param[r]; !ok {
						param[r] = param[e]
					}
				}
			}
		}
		indptr = append(indptr, len(indices))
	}
	sub, err := graph.FromCSR(len(c.nodes), indptr, indices, w)
	if err != nil {
		panic(err) // rows copied from a valid graph
	}
	c.sub = sub
	c.param = make([]int, len(c.eid))
	for j, e := range c.eid {
		c.param[j] = c.nParams
		if p, ok := param[e]; ok {
			c.param[j] = p
		}
	}
	return c
}

// reverseEdge returns the id of the edge v→u of g, or −1.
func reverseEdge(g *graph.Graph, u, v int) int {
	for e := g.Indptr[u]; e < g.Indptr[u+1]; e++ {
		if g.Indices[e] == v {
			return e
		}
	}
	return -1
}

// ExplainNode runs GNNExplainer (Ying et al. 2019) for node classification:
// it learns a soft mask over the edges of g and one over the feature
// columns of x such that the model, run with them, keeps its prediction
// for node — cross-entropy against that prediction — while the masks stay
// small and near 0 or 1 (the paper's size and entropy regularisers over
// the entries that reach the prediction, with PyG's coefficients and its
// random start, logits N(0, σ), by default). On a symmetric graph the
// edge mask is symmetric, as in the paper: u→v and v→u share one entry.
//
// model is the trained network run with an edge mask (one entry per edge
// of the graph it is given, values in (0, 1)), for instance one built from
// GCNConv.ForwardWeighted; it must return logits with one row per node of
// that graph. ExplainNode calls it on the node's computation subgraph
// rather than on g: the nodes within Hops+1 hops and every edge of g into
// a node within Hops hops, relabelled in increasing id, so that a model
// of at most Hops layers, each reading a node's in-edges and their
// sources' degrees, predicts there what it predicts on g at a fraction of
// the cost. The model's parameters keep their values, but Backward
// accumulates into their gradients (an optimiser's ZeroGrad clears them).
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
	c := computationOf(g, node, o.Hops, g.IsSymmetric())
	if x.IsSparse() {
		x = x.ToDense()
	}
	x = x.IndexSelect(c.nodes)
	var class int
	tensor.NoGrad(func() { class = model(c.sub, x, tensor.Ones(c.sub.NumEdges())).Narrow(0, c.root, 1).ArgMax(1)[0] })

	// PyG's start: edge logits N(0, σ) with σ from the ReLU gain and the
	// node count, feature logits N(0, 0.1).
	rng := tensor.NewRNG(o.Seed)
	std := math.Sqrt2 * math.Sqrt(2/(2*float64(g.NumNodes())))
	edgeLogit := rng.Normal(0, float32(std), c.nParams).SetRequiresGrad(true)
	params := []*tensor.Tensor{edgeLogit}
	var featLogit *tensor.Tensor
	if !o.EdgesOnly {
		featLogit = rng.Normal(0, 0.1, 1, x.Size(1)).SetRequiresGrad(true)
		params = append(params, featLogit)
	}
	opt := NewAdam(params, o.LR, 0)
	label := []int{class}
	entropy := func(m *tensor.Tensor) *tensor.Tensor {
		const eps = 1e-15
		return m.AddScalar(eps).Log().Mul(m).Add(m.Neg().AddScalar(1 + eps).Log().Mul(m.Neg().AddScalar(1))).Neg().Mean()
	}
	one := tensor.Ones(1, 1)
	for epoch := range o.Epochs {
		if interrupt.Raised() {
			return nil, &interrupt.Error{Op: fmt.Sprintf("nn: ExplainNode: epoch %d of %d", epoch+1, o.Epochs)}
		}
		em := edgeLogit.Sigmoid()
		// Edges whose mask cannot reach the prediction keep weight 1.
		mask := tensor.Concat(0, em.Reshape(c.nParams, 1), one).IndexSelect(c.param).Reshape(len(c.param))
		loss := em.Sum().MulScalar(float32(o.EdgeSize)).Add(entropy(em).MulScalar(float32(o.EdgeEntropy)))
		xm := x
		if featLogit != nil {
			fm := featLogit.Sigmoid()
			xm = x.Mul(fm)
			loss = loss.Add(fm.Mean().MulScalar(float32(o.FeatSize))).Add(entropy(fm).MulScalar(float32(o.FeatEntropy)))
		}
		loss = CrossEntropy(model(c.sub, xm, mask).Narrow(0, c.root, 1), label, nil).Add(loss)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	ex := &Explanation{Node: node, Class: class, EdgeMask: make([]float32, g.NumEdges())}
	for _, i := range c.within {
		ex.Nodes = append(ex.Nodes, c.nodes[i])
	}
	tensor.NoGrad(func() {
		em := edgeLogit.Sigmoid().Data()
		for j, p := range c.param {
			if p < c.nParams {
				ex.EdgeMask[c.eid[j]] = em[p]
				ex.Edges = append(ex.Edges, c.eid[j])
			}
		}
		if featLogit != nil {
			ex.FeatMask = append([]float32(nil), featLogit.Sigmoid().Data()...)
		}
	})
	sort.Ints(ex.Edges)
	return ex, nil
}
