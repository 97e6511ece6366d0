package devicetest

import (
	"fmt"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// A LayerShape is one configuration of an attention layer: heads of Out
// channels each, concatenated or averaged.
type LayerShape struct {
	Out, Heads int
	Concat     bool
}

func (s LayerShape) String() string {
	how := "concat"
	if !s.Concat {
		how = "mean"
	}
	return fmt.Sprintf("%dx%d %s", s.Heads, s.Out, how)
}

// GATv2Shapes are the GATv2Conv configurations of the shape sweep: one
// head of 7 (a class count not a multiple of 4), 40 (ogbn-arxiv's classes),
// 300, 700 (padded to 1024 on gnnlib/cuda) and 1024 channels, 8 heads of 8, 8 heads of 7 averaged, 2 heads of
// 47 and 3 heads of 12.
var GATv2Shapes = []LayerShape{
	{7, 1, true}, {40, 1, true}, {8, 8, true}, {7, 8, false},
	{300, 1, true}, {700, 1, true}, {1024, 1, true}, {47, 2, true}, {12, 3, true},
}

// GATShapes are the GATConv configurations of the shape sweep: widths 7,
// 40, 300 and 1024 with 3 heads concatenated and 2 averaged.
var GATShapes = []LayerShape{
	{7, 3, true}, {7, 2, false}, {40, 3, true}, {40, 2, false},
	{300, 3, true}, {300, 2, false}, {1024, 3, true}, {1024, 2, false},
}

// ShapeCases are the layer configurations of the shape sweep, each a
// Layer case on a graph with a heavy row (HubGraph) whose gradients with
// respect to the input and every parameter are compared: GATv2Conv at
// GATv2Shapes, GATConv at GATShapes, both on a sampled block, with heads
// of 1100 channels and with more heads than fit a warp, and the other
// graph layers at widths that are not a multiple of 4.
func ShapeCases(tb testing.TB) []Case {
	const in = 20
	g := HubGraph(tb, 200, 900, true)
	blk := blockGraph(tb)
	on := func(g *graph.Graph) func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor {
		return func(m nn.Module, x []*tensor.Tensor) *tensor.Tensor { return m.(nn.GraphLayer).Forward(g, x[0]) }
	}
	var cases []Case
	for _, s := range GATv2Shapes {
		cases = append(cases, Layer("GATv2Conv "+s.String(), func() nn.Module { return nn.NewGATv2Conv(in, s.Out, s.Heads, s.Concat, 0) }, on(g), randn(1, 200, in)))
	}
	for _, s := range GATShapes {
		cases = append(cases, Layer("GATConv "+s.String(), func() nn.Module { return nn.NewGATConv(in, s.Out, s.Heads, s.Concat, 0) }, on(g), randn(1, 200, in)))
	}
	return append(cases,
		Layer("GATv2Conv 2x40 block", func() nn.Module { return nn.NewGATv2Conv(in, 40, 2, true, 0) }, on(blk), randn(2, 400, in)),
		Layer("GATv2Conv 1x7 block", func() nn.Module { return nn.NewGATv2Conv(in, 7, 1, true, 0) }, on(blk), randn(2, 400, in)),
		Layer("GATConv 2x300 block", func() nn.Module { return nn.NewGATConv(in, 300, 2, true, 0) }, on(blk), randn(2, 400, in)),
		// Past the widest fused kernel a backend has (gnnlib/cuda: 1024).
		Layer("GATv2Conv 1x1100", func() nn.Module { return nn.NewGATv2Conv(in, 1100, 1, true, 0) }, on(g), randn(5, 200, in)),
		Layer("GATConv 2x1100 mean", func() nn.Module { return nn.NewGATConv(in, 1100, 2, false, 0) }, on(g), randn(5, 200, in)),
		Layer("GATv2Conv 40x4 concat", func() nn.Module { return nn.NewGATv2Conv(in, 4, 40, true, 0) }, on(g), randn(3, 200, in)),
		Layer("GATConv 40x3 mean", func() nn.Module { return nn.NewGATConv(in, 3, 40, false, 0) }, on(g), randn(3, 200, in)),
		Layer("GCNConv 47", func() nn.Module { return nn.NewGCNConv(in, 47) }, on(g), randn(4, 200, in)),
		Layer("SAGEConv mean 7", func() nn.Module { return nn.NewSAGEConv(in, 7, "mean") }, on(g), randn(4, 200, in)),
		Layer("SAGEConv max 1023", func() nn.Module { return nn.NewSAGEConv(in, 1023, "max") }, on(g), randn(4, 200, in)),
	)
}

// ShapeTrainCases train two-layer attention models whose shapes the
// fused kernels of a device may not all take: GATv2 with 3 heads of 12
// into 40 classes, and GAT with 2 heads of 300 into 8 classes averaged
// over 3 heads.
func ShapeTrainCases() []TrainCase {
	const feats, classes = 32, 8
	return []TrainCase{
		{"GATv2 3x12 to 40", func() nn.Module {
			return stack(nn.NewGATv2Conv(feats, 12, 3, true, 0), nn.NewGATv2Conv(36, 40, 1, true, 0))
		}, graphForward, nil, 0},
		{"GAT 2x300 to 3x8 mean", func() nn.Module {
			return stack(nn.NewGATConv(feats, 300, 2, true, 0), nn.NewGATConv(600, classes, 3, false, 0))
		}, graphForward, nil, 0},
	}
}

// CheckShapes runs the shape sweep on dev: ShapeCases against the CPU
// (outputs and gradients, within tol.Op) and ShapeTrainCases' training
// steps. No configuration the CPU takes may panic on the device.
func CheckShapes(t *testing.T, dev tensor.Backend, tol Tolerance) {
	subtest(t, "Layers", func(t *testing.T) { CheckOps(t, dev, ShapeCases(t), tol.Op) })
	subtest(t, "Training", func(t *testing.T) { CheckTraining(t, dev, ShapeTrainCases(), tol) })
}
