package viz_test

import (
	"fmt"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/prof"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/viz"
)

// check renders f as a notebook would and reports failures; the examples
// print a property of the figure instead of the image.
func check(f *viz.Figure, err error) *viz.Figure {
	if err != nil {
		panic(err)
	}
	if _, err := f.PNG(); err != nil {
		panic(err)
	}
	return f
}

func ExampleDegreeHistogram() {
	// GNNLAB_DATA points at a folder with planetoid/ind.cora.* (tests set it).
	ds, err := data.Planetoid("cora")
	if err != nil {
		fmt.Println(err)
		return
	}
	check(viz.DegreeHistogram(ds.Graph, viz.DegreeOptions{}))
	fit, _ := viz.FitPowerLaw(ds.Graph.InDegrees(), 0)
	fmt.Println(fit)
	// Output: α = 2.98 (d ≥ 9, 147 nodes)
}

func ExampleSpeedup() {
	threads := []float64{1, 2, 4, 8}
	speedups := []float64{1, 1.9, 3.4, 5.6}
	f := check(viz.Speedup(threads, speedups))
	fmt.Println(f)
	// Output: Speedup at [1 2 4 8] threads: [1 1.9 3.4 5.6]; Amdahl fit p = 0.941, limit 16.9×
}

func ExampleMemory() {
	m := prof.TrackMemory(time.Millisecond)
	m.Mark("forward")
	act := make([]float32, 1<<20)
	m.Mark("backward")
	m.Mark("step")
	r := m.Stop()
	act[0] = 1
	f := check(viz.Memory(r))
	fmt.Println(f.Plot().Title.Text, len(r.Marks))
	// Output: Memory during the run 3
}

func ExampleNewTrainingCurves() {
	tc := viz.NewTrainingCurves("loss", "train acc", "val acc")
	// In a notebook: tc.Show() before the loop, tc.Flush() after it; each
	// Add in between updates the same output.
	for epoch := 1; epoch <= 3; epoch++ {
		tc.Add(float64(epoch), 1/float64(epoch), 0.5+0.1*float64(epoch), 0.45+0.1*float64(epoch))
	}
	fmt.Println(tc.Figure())
	// Output: Training: epoch 3: loss 0.3333, train acc 0.8, val acc 0.75
}

func ExampleConfusionMatrix() {
	truth := []int{0, 0, 1, 1, 2, 2}
	pred := []int{0, 1, 1, 1, 2, 0}
	f := check(viz.ConfusionMatrix(pred, truth, []string{"a", "b", "c"}))
	fmt.Println(f.Plot().Title.Text)
	// Output: Confusion matrix (accuracy 66.7%, 6 samples)
}

func ExampleEmbedding() {
	_, x, labels, _ := graph.SBM(graph.SBMOptions{Sizes: []int{50, 50}, PIn: 0.1, POut: 0.01, Features: 8, Signal: 2, Seed: 1})
	f := check(viz.Embedding(tensor.FromSlice(x, 100, 8), labels))
	fmt.Println(f)
	// Output: Embedding of 100 points (PCA of 8 dimensions), 2 classes
}

func ExampleDrawGraph() {
	ds := data.KarateClub()
	f := check(viz.DrawGraph(ds.Graph, ds.Y, viz.LayoutOptions{Seed: 1}))
	fmt.Println(f)
	// Output: Graph: 34 nodes, 156 edges
}

func ExampleImageGrid() {
	// Sixteen 5×5 "filters" with values of both signs share one scale,
	// symmetric about 0, shown by a colour bar.
	w := tensor.Randn(1, 16, 1, 5, 5)
	f := check(viz.ImageGrid(w, 8))
	fmt.Println(f)
	// Output: 16 images of 5×5, one grey scale from -3.48 (white) to 3.48 (black)
}

func ExampleGroupedBars() {
	f := check(viz.GroupedBars([]string{"accuracy", "size", "time"}, []string{"FP32", "INT8"},
		[][]float64{{0.815, 1, 1}, {0.809, 0.25, 0.6}}))
	fmt.Println(f.Plot().Title.Text)
	// Output: FP32 vs INT8
}

func ExampleRoofline() {
	f := check(viz.Roofline(100, 20, []viz.RooflinePoint{{Name: "SpMM", Intensity: 0.25, GFLOPs: 3}}))
	fmt.Println(f.Plot().Title.Text)
	// Output: Roofline: 100 GFLOP/s, 20 GB/s
}

func ExampleOpProfile() {
	x := tensor.Randn(1, 64, 32)
	w := tensor.Randn(2, 32, 8).SetRequiresGrad(true)
	p := prof.StartOps()
	x.MatMul(w).ReLU().Sum().Backward()
	r := p.Stop()
	check(viz.OpProfile(r, 10))
	fmt.Println(len(r.Rows) > 0, viz.ProfileTable(r).Render().Data["text/html"] != nil)
	// Output: true true
}

func ExampleDrawExplanation() {
	g, y, _, _ := graph.BAShapes(graph.BAShapesOptions{Base: 40, M: 2, Houses: 4, Seed: 1})
	nn.Seed(1)
	conv := nn.NewGCNConv(1, 4) // untrained: a trained model explains better
	model := func(g *graph.Graph, x, mask *tensor.Tensor) *tensor.Tensor { return conv.ForwardMasked(g, x, mask) }
	ex, err := nn.ExplainNode(model, g, tensor.Ones(g.NumNodes(), 1), 42, nn.ExplainerOptions{Epochs: 10, Hops: 2})
	if err != nil {
		panic(err)
	}
	f := check(viz.DrawExplanation(g, ex, y, viz.ExplanationOptions{Layout: viz.LayoutOptions{Seed: 1}}))
	fmt.Println(f)
	// Output: Explanation of node 42 (class 3): 5 nodes, top 6 of 10 edges
}
