package nn_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// tinyHetero has papers and authors with writes, written_by and cites
// relations, an author without papers and a paper nobody cites.
func tinyHetero(t testing.TB) (*graph.HeteroGraph, []graph.EdgeType) {
	t.Helper()
	h := graph.NewHeteroGraph()
	rels := []graph.EdgeType{{Src: "author", Rel: "writes", Dst: "paper"}, {Src: "paper", Rel: "written_by", Dst: "author"}, {Src: "paper", Rel: "cites", Dst: "paper"}}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(h.AddNodes("paper", 4, nil, 0))
	must(h.AddNodes("author", 3, nil, 0))
	must(h.AddEdges(rels[0], []int{0, 0, 1, 1}, []int{0, 1, 1, 2}))
	must(h.AddEdges(rels[1], []int{0, 1, 1, 2}, []int{0, 0, 1, 1}))
	must(h.AddEdges(rels[2], []int{1, 2, 3, 3}, []int{0, 0, 1, 2}))
	return h, rels
}

func TestHeteroGradients(t *testing.T) {
	nn.Seed(21)
	h, rels := tinyHetero(t)
	xp := tensor.NewRNG(1).Normal(0, 1, 4, 3)
	xa := tensor.NewRNG(2).Normal(0, 1, 3, 3)
	x := map[string]*tensor.Tensor{"paper": xp, "author": xa}
	rgcn := nn.NewRGCNConv(3, 2, rels, 2)
	hc := nn.NewHeteroConv(rels, []nn.GraphLayer{nn.NewSAGEConv(3, 2, "mean"), nn.NewGCNConv(3, 2), nn.NewGATConv(3, 2, 1, true, 0)})
	both := func(m map[string]*tensor.Tensor) *tensor.Tensor {
		return tensor.Concat(0, m["paper"], m["author"])
	}
	inputs := func(m nn.Module) []*tensor.Tensor { return append([]*tensor.Tensor{xp, xa}, m.Params()...) }
	runGradCases(t, []gradCase{
		{"RGCNConv", inputs(rgcn), func() *tensor.Tensor { return both(rgcn.Forward(h, x)) }},
		{"HeteroConv", inputs(hc), func() *tensor.Tensor { return both(hc.Forward(h, x)) }},
	})
}

// TestRGCNFormula checks RGCNConv against its formula computed directly.
func TestRGCNFormula(t *testing.T) {
	nn.Seed(22)
	h, rels := tinyHetero(t)
	x := map[string]*tensor.Tensor{"paper": tensor.NewRNG(3).Normal(0, 1, 4, 3), "author": tensor.NewRNG(4).Normal(0, 1, 3, 3)}
	c := nn.NewRGCNConv(3, 2, rels, 2)
	c.B = tensor.NewRNG(5).Normal(0, 1, 2)
	got := c.Forward(h, x)
	w := c.Coeffs.MatMul(c.Bases)
	for _, typ := range []string{"paper", "author"} {
		for i := 0; i < h.NumNodes(typ); i++ {
			want := x[typ].Narrow(0, i, 1).MatMul(c.Root).Add(c.B).Data()
			for r, et := range rels {
				if et.Dst != typ {
					continue
				}
				nb := h.Relation(et).Neighbors(i)
				wr := w.Narrow(0, r, 1).Reshape(3, 2)
				for _, j := range nb {
					m := x[et.Src].Narrow(0, j, 1).MatMul(wr).MulScalar(1 / float32(len(nb))).Data()
					for k := range want {
						want[k] += m[k]
					}
				}
			}
			row := got[typ].Narrow(0, i, 1).Data()
			for k := range want {
				if d := row[k] - want[k]; d > 1e-5 || d < -1e-5 {
					t.Errorf("%s %d: RGCNConv = %v, want %v", typ, i, row, want)
					break
				}
			}
		}
	}
}

// TestRGCNTypedSBM trains a two-layer RGCN (basis decomposition) on a
// typed SBM whose features carry little signal, and checks that it
// recovers the planted classes of the papers it was not trained on.
func TestRGCNTypedSBM(t *testing.T) {
	n := seedCount(t)
	accs, bases := make([]float64, n), make([]float64, n)
	for k := range accs {
		accs[k], bases[k] = rgcnTypedSBM(t, int64(k+1))
	}
	acc, asd := meanSD(accs)
	base, bsd := meanSD(bases)
	t.Logf("typed SBM over %d seeds: RGCN recovers %.3f ± %.3f of the held-out papers' classes %v (features-only MLP %.3f ± %.3f)", n, acc, asd, accs, base, bsd)
	if acc < 0.95 {
		t.Errorf("RGCN on a typed SBM: %.3f of held-out classes recovered (mean of %d seeds), want >= 0.95", acc, n)
	}
}

// rgcnTypedSBM trains the two-layer RGCN and the features-only MLP on the
// typed SBM of seed and returns their held-out accuracies.
func rgcnTypedSBM(t *testing.T, seed int64) (acc, base float64) {
	rels := []graph.EdgeType{{Src: "author", Rel: "writes", Dst: "paper"}, {Src: "paper", Rel: "written_by", Dst: "author"}, {Src: "paper", Rel: "cites", Dst: "paper"}}
	h, y, err := graph.TypedSBM(graph.TypedSBMOptions{
		NodeTypes: []string{"paper", "author"}, Sizes: []int{800, 400}, Classes: 4, Relations: rels,
		PIn: 0.05, POut: 0.005, Features: 8, Signal: 0.3, Seed: uint64(seed)})
	if err != nil {
		t.Fatal(err)
	}
	var train, test []int
	for v := 0; v < h.NumNodes("paper"); v++ {
		if v%5 == 0 {
			train = append(train, v)
		} else {
			test = append(test, v)
		}
	}
	nn.Seed(seed)
	x := nn.HeteroFeatures(h)
	c1 := nn.NewRGCNConv(8, 16, rels, 2)
	c2 := nn.NewRGCNConv(16, 4, rels, 2)
	opt := nn.NewAdam(append(c1.Params(), c2.Params()...), 0.01, 5e-4)
	forward := func() *tensor.Tensor { return c2.Forward(h, nn.HeteroReLU(c1.Forward(h, x)))["paper"] }
	for epoch := 0; epoch < 200; epoch++ {
		loss := nn.CrossEntropy(forward(), y["paper"], train)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	tensor.NoGrad(func() { acc = nn.Accuracy(forward(), y["paper"], test) })

	// A features-only baseline shows that the graph is needed.
	nn.Seed(seed)
	mlp := nn.NewMLP(8, 16, 4)
	mopt := nn.NewAdam(mlp.Params(), 0.01, 5e-4)
	for epoch := 0; epoch < 100; epoch++ {
		loss := nn.CrossEntropy(mlp.Forward(x["paper"]), y["paper"], train)
		mopt.ZeroGrad()
		loss.Backward()
		mopt.Step()
	}
	tensor.NoGrad(func() { base = nn.Accuracy(mlp.Forward(x["paper"]), y["paper"], test) })
	return acc, base
}
