package nn_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

func TestEmbedding(t *testing.T) {
	nn.Seed(4)
	e := nn.NewEmbedding(5, 3)
	idx := []int{4, 0, 4, 2}
	got := e.Lookup(idx)
	for i, r := range idx {
		for j := 0; j < 3; j++ {
			if got.At(i, j) != e.W.At(r, j) {
				t.Fatalf("Lookup(%v)[%d][%d] = %v, want W[%d][%d] = %v", idx, i, j, got.At(i, j), r, j, e.W.At(r, j))
			}
		}
	}
	// Forward takes indices as a tensor of any shape.
	y := e.Forward(tensor.FromSlice([]float32{4, 0, 4, 2}, 2, 2))
	if !slices.Equal(y.Shape(), []int{2, 2, 3}) || !tensor.AllClose(y.Reshape(4, 3), got, 0, 0) {
		t.Errorf("Forward shape %v, want [2 2 3] with the rows of Lookup", y.Shape())
	}
	// The gradient lands on the rows looked up, summed over repeats.
	e.Lookup(idx).Sum().Backward()
	wantRows := []float32{1, 0, 1, 0, 2}
	for r, w := range wantRows {
		for j := 0; j < 3; j++ {
			if g := e.W.Grad().At(r, j); g != w {
				t.Errorf("grad W[%d][%d] = %v, want %v", r, j, g, w)
			}
		}
	}
	runGradCases(t, []gradCase{{"Embedding", e.Params(), func() *tensor.Tensor { return e.Lookup(idx) }}})
	for name, f := range map[string]func(){
		"out of range": func() { e.Lookup([]int{5}) },
		"not integral": func() { e.Forward(tensor.FromSlice([]float32{1.5}, 1)) },
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				if !errors.Is(err, tensor.ErrIndex) {
					t.Errorf("%s: panic %v, want an error wrapping tensor.ErrIndex", name, err)
				}
			}()
			f()
		}()
	}
}

func TestSummary(t *testing.T) {
	nn.Seed(1)
	gcn := nn.NewGCN(10, 16, 3)
	s := nn.GraphSummary(gcn, smallGraphN(t, 10), tensor.Ones(10, 10))
	if s.Model != "GCN" || len(s.Rows) != 2 || s.Rows[0].Name != "Conv1" || s.Rows[1].Name != "Conv2" {
		t.Fatalf("GraphSummary(GCN) = %+v, want rows Conv1, Conv2", s)
	}
	if want := 10*16 + 16 + 16*3 + 3; s.Params != want || s.Rows[0].Params != 10*16+16 {
		t.Errorf("GCN parameters %d (Conv1 %d), want %d (%d)", s.Params, s.Rows[0].Params, want, 10*16+16)
	}
	if !slices.Equal(s.Output, []int{10, 3}) || !gcn.Training() {
		t.Errorf("output %v, training %t after the summary, want [10 3] and the mode restored", s.Output, gcn.Training())
	}
	if txt := s.String(); !strings.Contains(txt, "GCNConv(10, 16)") || !strings.Contains(txt, "total parameters: 227") {
		t.Errorf("String() =\n%s\nwant the layers and the total", txt)
	}

	// A Sequential run layer by layer, with a GIN layer whose trained ε
	// is a parameter of its own.
	mlp := nn.NewSequential(nn.NewEmbedding(7, 4), nn.NewFlatten(), nn.NewLinear(8, 5), nn.ReLU(), nn.NewLinear(5, 2))
	ms := nn.InputSummary(mlp, tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 3, 2))
	wantOut := [][]int{{3, 2, 4}, {3, 8}, {3, 5}, {3, 5}, {3, 2}}
	for i, r := range ms.Rows {
		if !slices.Equal(r.Output, wantOut[i]) {
			t.Errorf("row %s output %v, want %v", r.Name, r.Output, wantOut[i])
		}
	}
	if ms.Params != 7*4+8*5+5+5*2+2 {
		t.Errorf("Sequential parameters %d, want %d", ms.Params, 7*4+8*5+5+5*2+2)
	}
	gin := nn.NewGINConv(nn.NewMLP(3, 4, 2), 0.1, true)
	gs := nn.Summary(gin)
	var names []string
	for _, r := range gs.Rows {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"MLP.0", "MLP.1", "MLP.2", "(own)"}) || gs.Rows[3].Params != 1 {
		t.Errorf("Summary(GINConv) rows %v (own %d params), want MLP.0, MLP.1, MLP.2, (own) with ε", names, gs.Rows[len(gs.Rows)-1].Params)
	}
}

// smallGraphN is a ring of n nodes in both directions.
func smallGraphN(t *testing.T, n int) *graph.Graph {
	t.Helper()
	var src, dst []int
	for i := 0; i < n; i++ {
		src, dst = append(src, i, (i+1)%n), append(dst, (i+1)%n, i)
	}
	g, err := graph.FromEdges(n, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
