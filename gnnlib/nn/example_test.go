package nn_test

import (
	"bytes"
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// A two-layer GCN learns the two factions of Zachary's karate club from
// four labelled members.
func ExampleNewGCN() {
	ds := data.KarateClub()
	nn.Seed(1)
	model := nn.NewGCN(ds.NumFeatures(), 16, ds.NumClasses())
	opt := nn.NewAdam(model.Params(), 0.01, 5e-4)
	for epoch := 0; epoch < 200; epoch++ {
		model.Train()
		loss := nn.CrossEntropy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TrainIdx)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	model.Eval()
	acc := nn.Accuracy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TestIdx)
	fmt.Printf("test accuracy %.2f\n", acc)
	// Output: test accuracy 0.97
}

// Linear computes x·W + B with W stored as [in, out].
func ExampleLinear() {
	l := nn.NewLinear(2, 1)
	copy(l.W.Data(), []float32{2, -1})
	copy(l.B.Data(), []float32{0.5})
	x := tensor.FromSlice([]float32{1, 1, 3, 2}, 2, 2)
	fmt.Println(l.Forward(x).Data())
	// Output: [1.5 4.5]
}

// double is a layer defined outside the package, as in a notebook cell:
// three methods make it an nn.Layer.
type double struct{}

func (double) Forward(x *tensor.Tensor) *tensor.Tensor { return x.MulScalar(2) }
func (double) Params() []*tensor.Tensor                { return nil }
func (double) SetTraining(bool)                        {}

// Sequential chains built-in and user-defined layers.
func ExampleSequential() {
	nn.Seed(1)
	model := nn.NewSequential(nn.NewLinear(4, 3), nn.ReLU(), double{}, nn.NewLinear(3, 2))
	y := model.Forward(tensor.Ones(5, 4))
	fmt.Println(y.Shape(), len(model.Params()))
	// Output: [5 2] 4
}

// SpMM sums the in-neighbours' rows; on the GCN-normalised graph it is
// the propagation step of a GCN.
func ExampleSpMM() {
	g, _ := graph.FromEdges(3, []int{0, 1, 2}, []int{1, 2, 1}) // 0→1, 1→2, 2→1
	x := tensor.FromSlice([]float32{1, 10, 100}, 3, 1)
	fmt.Println(nn.SpMM(g, x).Data())
	// Output: [0 101 10]
}

// GATConv with 4 heads of 8 features concatenates them.
func ExampleGATConv() {
	g, _ := graph.FromEdges(3, []int{0, 1, 2, 1}, []int{1, 2, 1, 0})
	nn.Seed(1)
	conv := nn.NewGATConv(5, 8, 4, true, 0.6)
	conv.Eval()
	y := conv.Forward(g, tensor.Randn(2, 3, 5))
	fmt.Println(y.Shape())
	// Output: [3 32]
}

// Save writes the parameters in the safetensors format; Load reads them
// into a model of the same architecture.
func ExampleSave() {
	nn.Seed(1)
	a := nn.NewMLP(4, 8, 2)
	var buf bytes.Buffer
	if err := nn.Save(&buf, a); err != nil {
		fmt.Println(err)
		return
	}
	nn.Seed(2)
	b := nn.NewMLP(4, 8, 2)
	if err := nn.Load(&buf, b); err != nil {
		fmt.Println(err)
		return
	}
	x := tensor.Ones(1, 4)
	fmt.Println(tensor.AllClose(a.Forward(x), b.Forward(x), 0, 0))
	// Output: true
}

func ExampleRGCNConv() {
	rels := []graph.EdgeType{{Src: "author", Rel: "writes", Dst: "paper"}, {Src: "paper", Rel: "cites", Dst: "paper"}}
	h, _, _ := graph.TypedSBM(graph.TypedSBMOptions{NodeTypes: []string{"paper", "author"}, Sizes: []int{50, 20},
		Classes: 2, Relations: rels, PIn: 0.2, POut: 0.02, Features: 4, Signal: 1, Seed: 1})
	nn.Seed(1)
	conv := nn.NewRGCNConv(4, 8, rels, 1) // one basis shared by both relations
	out := conv.Forward(h, nn.HeteroFeatures(h))
	fmt.Println(conv)
	fmt.Println("paper", out["paper"].Shape(), "author", out["author"].Shape())
	// Output:
	// RGCNConv(4, 8, relations=2, bases=1)
	// paper [50 8] author [20 8]
}
