package nn_test

import (
	"errors"
	"sort"
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
	})
	// A mask of ones is the plain layer.
	if got, want := conv.ForwardMasked(g, x, tensor.Ones(g.NumEdges())), conv.Forward(g, x); !tensor.AllClose(got, want, 1e-5, 1e-6) {
		t.Errorf("ForwardMasked with ones = %v, want Forward's %v", got, want)
	}
}

// rocAUC is the probability that a random positive scores above a random
// negative (ties count half).
func rocAUC(scores []float32, pos []bool) float64 {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return scores[idx[a]] < scores[idx[b]] })
	var rankSum float64
	np := 0
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && scores[idx[j]] == scores[idx[i]] {
			j++
		}
		mid := float64(i+j+1) / 2 // mean 1-based rank of the tie group
		for k := i; k < j; k++ {
			if pos[idx[k]] {
				rankSum += mid
				np++
			}
		}
		i = j
	}
	nn := len(scores) - np
	if np == 0 || nn == 0 {
		return 0.5
	}
	return (rankSum - float64(np*(np+1))/2) / float64(np*nn)
}

func TestRocAUC(t *testing.T) {
	if got := rocAUC([]float32{0.1, 0.4, 0.35, 0.8}, []bool{false, false, true, true}); got != 0.75 {
		t.Errorf("rocAUC = %g, want 0.75", got)
	}
}

// baShapesGCN is the paper's node classifier: three GCN layers of 20
// units with ReLU, their outputs concatenated into a linear read-out,
// here with an edge mask.
type baShapesGCN struct {
	c1, c2, c3 *nn.GCNConv
	out        *nn.Linear
}

func (m *baShapesGCN) forward(g *graph.Graph, x, mask *tensor.Tensor) *tensor.Tensor {
	h1 := m.c1.ForwardMasked(g, x, mask).ReLU()
	h2 := m.c2.ForwardMasked(g, h1, mask).ReLU()
	h3 := m.c3.ForwardMasked(g, h2, mask).ReLU()
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
// nodes with GNNExplainer and measures how well the edge masks pick out
// the house edges of each node's neighbourhood (ROC-AUC over the pooled
// edges; the paper reports 0.925, the target is 0.90).
func TestGNNExplainerBAShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model and explains 22 nodes")
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
	t.Logf("GNNExplainer on BA-Shapes over %d seeds with an accurate GCN: ROC-AUC %.3f ± %.3f %v (GCN below 90%% for seeds %v, left out)", len(aucs), auc, sd, aucs, weak)
	if auc < 0.90 {
		t.Errorf("GNNExplainer ROC-AUC on BA-Shapes = %.3f (mean of %d seeds), want >= 0.90", auc, len(aucs))
	}
}

// explainBAShapes trains the GCN on the BA-Shapes graph of seed, explains
// every 19th house node and returns the edge masks' pooled ROC-AUC; ok is
// false, with nothing explained, when the GCN's accuracy stays below 90%.
func explainBAShapes(t *testing.T, seed int64) (auc float64, ok bool) {
	g, y, inMotif, err := graph.BAShapes(graph.BAShapesOptions{Seed: uint64(seed)})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Ones(g.NumNodes(), 10)
	nn.Seed(seed)
	m := &baShapesGCN{c1: nn.NewGCNConv(10, 20), c2: nn.NewGCNConv(20, 20), c3: nn.NewGCNConv(20, 20), out: nn.NewLinear(60, 4)}
	opt := nn.NewAdam(m.params(), 0.01, 5e-4)
	ones := tensor.Ones(g.NumEdges())
	for epoch := 0; epoch < 1000; epoch++ {
		loss := nn.CrossEntropy(m.forward(g, x, ones), y, nil)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	var acc float64
	tensor.NoGrad(func() { acc = nn.Accuracy(m.forward(g, x, ones), y, nil) })
	t.Logf("BA-Shapes seed %d: GCN accuracy %.3f", seed, acc)
	if acc < 0.9 {
		return 0, false
	}
	var scores []float32
	var truth []bool
	explained := 0
	for v := 300; v < g.NumNodes(); v += 19 {
		ex, err := nn.ExplainNode(m.forward, g, x, v, nn.ExplainerOptions{Epochs: 200, Seed: int64(v)})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ex.Edges {
			scores = append(scores, ex.EdgeMask[e])
			truth = append(truth, inMotif[e])
		}
		explained++
	}
	auc = rocAUC(scores, truth)
	t.Logf("BA-Shapes seed %d: ROC-AUC %.3f over %d edges of %d explained house nodes", seed, auc, len(scores), explained)
	if _, err := nn.ExplainNode(m.forward, g, x, g.NumNodes(), nn.ExplainerOptions{}); !errors.Is(err, nn.ErrExplain) {
		t.Errorf("ExplainNode(node out of range) = %v, want ErrExplain", err)
	}
	return auc, true
}
