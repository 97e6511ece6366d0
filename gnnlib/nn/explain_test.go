package nn_test

import (
	"errors"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

func TestMaskedGradients(t *testing.T) {
	nn.Seed(31)
	g := smallGraph(t)
	x := tensor.NewRNG(1).Normal(0, 1, 7, 3)
	w := tensor.NewRNG(2).Uniform(0.1, 1, g.NumEdges())
	conv := nn.NewGCNConv(3, 2)
	runGradCases(t, []gradCase{
		{"WeightedSpMM", []*tensor.Tensor{w, x}, func() *tensor.Tensor { return nn.WeightedSpMM(g, w, x) }},
		{"GCNConv.ForwardMasked", append([]*tensor.Tensor{w, x}, conv.Params()...), func() *tensor.Tensor { return conv.ForwardMasked(g, x, w) }},
		{"GCNConv.ForwardWeighted", append([]*tensor.Tensor{w, x}, conv.Params()...), func() *tensor.Tensor { return conv.ForwardWeighted(g, x, w) }},
	})
	// Weights of ones are the plain layer; a weight of 0 removes the edge,
	// degrees included (self-loops, which keep their weight as in PyG, are
	// left in).
	if got, want := conv.ForwardWeighted(g, x, tensor.Ones(g.NumEdges())), conv.Forward(g, x); !tensor.AllClose(got, want, 1e-5, 1e-6) {
		t.Errorf("ForwardWeighted with ones = %v, want Forward's %v", got, want)
	}
	src, dst := g.Edges()
	keep := make([]float32, g.NumEdges())
	var ks, kd []int
	for e := range keep {
		if e%3 != 0 || src[e] == dst[e] {
			keep[e] = 1
			ks, kd = append(ks, src[e]), append(kd, dst[e])
		}
	}
	pruned, err := graph.FromEdges(g.NumNodes(), ks, kd)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := conv.ForwardWeighted(g, x, tensor.FromSlice(keep)), conv.Forward(pruned, x); !tensor.AllClose(got, want, 1e-5, 1e-6) {
		t.Errorf("ForwardWeighted with zeros = %v, want Forward without those edges %v", got, want)
	}
	// A mask of ones is the plain layer.
	if got, want := conv.ForwardMasked(g, x, tensor.Ones(g.NumEdges())), conv.Forward(g, x); !tensor.AllClose(got, want, 1e-5, 1e-6) {
		t.Errorf("ForwardMasked with ones = %v, want Forward's %v", got, want)
	}
}

// baShapesGCN is the paper's node classifier: three GCN layers of 20
// units with ReLU, their outputs concatenated into a linear read-out, run
// with the edge mask as edge weights (GCNConv.ForwardWeighted), so that a
// masked-out edge is gone, degrees included.
type baShapesGCN struct {
	c1, c2, c3 *nn.GCNConv
	out        *nn.Linear
}

func (m *baShapesGCN) forward(g *graph.Graph, x, mask *tensor.Tensor) *tensor.Tensor {
	h1 := m.c1.ForwardWeighted(g, x, mask).ReLU()
	h2 := m.c2.ForwardWeighted(g, h1, mask).ReLU()
	h3 := m.c3.ForwardWeighted(g, h2, mask).ReLU()
	return m.out.Forward(tensor.Concat(1, h1, h2, h3))
}

// plain is forward without a mask (the same function as forward with a
// mask of ones, at a lower cost), for training.
func (m *baShapesGCN) plain(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	h1 := m.c1.Forward(g, x).ReLU()
	h2 := m.c2.Forward(g, h1).ReLU()
	h3 := m.c3.Forward(g, h2).ReLU()
	return m.out.Forward(tensor.Concat(1, h1, h2, h3))
}

func (m *baShapesGCN) params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, l := range []nn.Module{m.c1, m.c2, m.c3, m.out} {
		ps = append(ps, l.Params()...)
	}
	return ps
}

// TestGNNExplainerBAShapes trains the GCN on BA-Shapes, explains house
// nodes of every role with GNNExplainer and measures how well the edge
// masks pick out each node's own house among the edges of its 3-hop
// neighbourhood (ROC-AUC over the pooled undirected edges; the paper
// reports 0.925, the target is 0.90).
func TestGNNExplainerBAShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model and explains 58 nodes")
	}
	// An explanation is only as good as the model: seeds whose GCN does
	// not reach 90% are reported and left out of the mean, and they must
	// stay a minority.
	n := seedCount(t)
	var aucs []float64
	var weak []int
	for k := range n {
		auc, ok := explainBAShapes(t, int64(k+1))
		if !ok {
			weak = append(weak, k+1)
			continue
		}
		aucs = append(aucs, auc)
	}
	if len(weak) > n/2 || len(aucs) == 0 {
		t.Fatalf("the GCN on BA-Shapes stayed below 90%% accuracy for seeds %v of %d", weak, n)
	}
	auc, sd := meanSD(aucs)
	t.Logf("GNNExplainer on BA-Shapes over %d seeds with an accurate GCN: ROC-AUC %.3f ± %.3f %.3f (GCN below 90%% for seeds %v, left out)", len(aucs), auc, sd, aucs, weak)
	if auc < 0.90 {
		t.Errorf("GNNExplainer ROC-AUC on BA-Shapes = %.3f (mean of %d seeds), want >= 0.90", auc, len(aucs))
	}
}

// scores pools mask entries and their truth for nn.ROCAUC.
type scores struct {
	s []float32
	y []int
}

func (p *scores) add(s float32, pos bool) {
	p.s = append(p.s, s)
	y := 0
	if pos {
		y = 1
	}
	p.y = append(p.y, y)
}

func (p *scores) auc(t *testing.T) float64 {
	a, err := nn.ROCAUC(p.s, p.y)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// explainBAShapes trains the GCN on the BA-Shapes graph of seed, explains
// every 7th house node (each role in turn) and returns the pooled ROC-AUC
// of the edge masks as the paper measures it: the candidates are the
// undirected edges of each node's 3-hop neighbourhood (its computation
// graph; those that cannot reach the prediction get mask 0), the
// positives those of its own house. It logs the stricter figure over the
// edges that reach the prediction alone. ok is false, with nothing
// explained, when the GCN's accuracy stays below 90%.
func explainBAShapes(t *testing.T, seed int64) (auc float64, ok bool) {
	const base = 300
	g, y, inMotif, err := graph.BAShapes(graph.BAShapesOptions{Base: base, Seed: uint64(seed)})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Ones(g.NumNodes(), 10) // the paper's constant features
	nn.Seed(seed)
	m := &baShapesGCN{c1: nn.NewGCNConv(10, 20), c2: nn.NewGCNConv(20, 20), c3: nn.NewGCNConv(20, 20), out: nn.NewLinear(60, 4)}
	opt := nn.NewAdam(m.params(), 0.005, 0)
	for epoch := 0; epoch < 3000; epoch++ {
		loss := nn.CrossEntropy(m.plain(g, x), y, nil)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	var acc float64
	tensor.NoGrad(func() { acc = nn.Accuracy(m.forward(g, x, tensor.Ones(g.NumEdges())), y, nil) })
	t.Logf("BA-Shapes seed %d: GCN accuracy %.3f", seed, acc)
	if acc < 0.9 {
		return 0, false
	}
	src, dst := g.Edges()
	// House h holds nodes base+5h … base+5h+4.
	house := func(u int) int { return (u - base) / 5 }
	var hood, reach scores
	explained := 0
	for v := base; v < g.NumNodes(); v += 7 {
		ex, err := nn.ExplainNode(m.forward, g, x, v, nn.ExplainerOptions{EdgesOnly: true, Seed: int64(v)})
		if err != nil {
			t.Fatal(err)
		}
		_, eids, err := g.Subgraph(ex.Nodes)
		if err != nil {
			t.Fatal(err)
		}
		reaches := map[int]bool{}
		for _, e := range ex.Edges {
			reaches[e] = true
		}
		for _, e := range eids {
			u, w := src[e], dst[e]
			if u > w {
				continue // the mask is symmetric: count each edge once
			}
			own := inMotif[e] && house(u) == house(v) && house(w) == house(v)
			hood.add(ex.EdgeMask[e], own)
			if reaches[e] {
				reach.add(ex.EdgeMask[e], own)
			}
		}
		explained++
	}
	auc = hood.auc(t)
	t.Logf("BA-Shapes seed %d: ROC-AUC %.3f over the %d edges of the 3-hop neighbourhoods of %d explained house nodes, %.3f over the %d that reach their predictions", seed, auc, len(hood.s), explained, reach.auc(t), len(reach.s))
	if _, err := nn.ExplainNode(m.forward, g, x, g.NumNodes(), nn.ExplainerOptions{}); !errors.Is(err, nn.ErrExplain) {
		t.Errorf("ExplainNode(node out of range) = %v, want ErrExplain", err)
	}
	return auc, true
}
