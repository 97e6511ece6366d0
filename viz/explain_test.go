package viz_test

import (
	"bytes"
	"errors"
	"image/png"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/viz"
)

// explainHouse explains a house node of a small BA-Shapes graph with an
// untrained GCN: the drawing only needs a well-formed explanation.
func explainHouse(t *testing.T) (*graph.Graph, []int, *nn.Explanation) {
	t.Helper()
	g, y, _, err := graph.BAShapes(graph.BAShapesOptions{Base: 40, M: 2, Houses: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	nn.Seed(1)
	c1, c2 := nn.NewGCNConv(1, 8), nn.NewGCNConv(8, 4)
	model := func(g *graph.Graph, x, mask *tensor.Tensor) *tensor.Tensor {
		return c2.ForwardMasked(g, c1.ForwardMasked(g, x, mask).ReLU(), mask)
	}
	ex, err := nn.ExplainNode(model, g, tensor.Ones(g.NumNodes(), 1), 42, nn.ExplainerOptions{Epochs: 10, Hops: 2})
	if err != nil {
		t.Fatal(err)
	}
	return g, y, ex
}

func TestDrawExplanation(t *testing.T) {
	g, y, ex := explainHouse(t)
	f, err := viz.DrawExplanation(g, ex, y, viz.ExplanationOptions{Layout: viz.LayoutOptions{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() < 100 {
		t.Fatalf("DrawExplanation's PNG: %v, %v", img, err)
	}
	// The red of the top edges is in the picture.
	red := 0
	for yy := img.Bounds().Min.Y; yy < img.Bounds().Max.Y; yy++ {
		for xx := img.Bounds().Min.X; xx < img.Bounds().Max.X; xx++ {
			r, gg, bb, _ := img.At(xx, yy).RGBA()
			if r>>8 > 180 && gg>>8 < 60 && bb>>8 < 60 {
				red++
			}
		}
	}
	if red == 0 {
		t.Errorf("DrawExplanation: no top edge drawn in red")
	}

	other, _, _, _ := graph.BAShapes(graph.BAShapesOptions{Base: 30, M: 2, Houses: 2, Seed: 2})
	for name, call := range map[string]func() error{
		"other graph": func() error { _, err := viz.DrawExplanation(other, ex, nil, viz.ExplanationOptions{}); return err },
		"short labels": func() error {
			_, err := viz.DrawExplanation(g, ex, y[:3], viz.ExplanationOptions{})
			return err
		},
		"empty": func() error {
			_, err := viz.DrawExplanation(g, &nn.Explanation{}, nil, viz.ExplanationOptions{})
			return err
		},
	} {
		if err := call(); !errors.Is(err, viz.ErrData) {
			t.Errorf("DrawExplanation(%s) = %v, want ErrData", name, err)
		}
	}
}
