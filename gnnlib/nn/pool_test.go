package nn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

func TestPoolGradients(t *testing.T) {
	x := tensor.NewRNG(5).Normal(0, 1, 7, 3)
	batch := []int{0, 0, 2, 2, 2, 0, 3} // graph 1 has no nodes
	runGradCases(t, []gradCase{
		{"GlobalAddPool", []*tensor.Tensor{x}, func() *tensor.Tensor { return nn.GlobalAddPool(x, batch, 4) }},
		{"GlobalMeanPool", []*tensor.Tensor{x}, func() *tensor.Tensor { return nn.GlobalMeanPool(x, batch, 4) }},
		{"GlobalMaxPool", []*tensor.Tensor{x}, func() *tensor.Tensor { return nn.GlobalMaxPool(x, batch, 4) }},
	})
	mean := nn.GlobalMeanPool(x, batch, 4).Data()
	for j := 0; j < 3; j++ {
		want := (x.At(2, j) + x.At(3, j) + x.At(4, j)) / 3
		if d := mean[2*3+j] - want; d > 1e-6 || d < -1e-6 || mean[1*3+j] != 0 {
			t.Errorf("GlobalMeanPool column %d: graph 2 %g, want %g; empty graph %g, want 0", j, mean[2*3+j], want, mean[3+j])
		}
	}
}

// ringsAndStars returns n graphs on 5 to 12 nodes, cycles (class 0) and
// stars (class 1) alternately, with one constant feature per node.
func ringsAndStars(n int, seed uint64) ([]*graph.Graph, []int) {
	r := rand.New(rand.NewPCG(seed, 2))
	gs, ys := make([]*graph.Graph, n), make([]int, n)
	for i := range gs {
		k := 5 + r.IntN(8)
		var src, dst []int
		for v := 1; v < k; v++ {
			u := v - 1
			if i%2 == 1 {
				u = 0
			}
			src, dst = append(src, u, v), append(dst, v, u)
		}
		if i%2 == 0 {
			src, dst = append(src, k-1, 0), append(dst, 0, k-1)
		}
		gs[i], _ = graph.FromEdges(k, src, dst)
		ys[i] = i % 2
	}
	return gs, ys
}

// TestGraphClassification trains GIN layers with a global pooling
// read-out on batches of cycles and stars and checks held-out accuracy.
func TestGraphClassification(t *testing.T) {
	train, ytrain := ringsAndStars(80, 1)
	test, ytest := ringsAndStars(40, 2)
	batchOf := func(gs []*graph.Graph) (*graph.Graph, *tensor.Tensor, []int) {
		g, b := graph.Batch(gs)
		return g, tensor.Ones(g.NumNodes(), 1), b
	}
	for _, pool := range []struct {
		name string
		f    func(*tensor.Tensor, []int, int) *tensor.Tensor
	}{{"add", nn.GlobalAddPool}, {"mean", nn.GlobalMeanPool}, {"max", nn.GlobalMaxPool}} {
		t.Run(pool.name, func(t *testing.T) {
			nn.Seed(4)
			c1 := nn.NewGINConv(nn.NewMLP(1, 16, 16), 0, false)
			c2 := nn.NewGINConv(nn.NewMLP(16, 16, 16), 0, false)
			out := nn.NewLinear(16, 2)
			params := append(append(c1.Params(), c2.Params()...), out.Params()...)
			forward := func(gs []*graph.Graph) *tensor.Tensor {
				g, x, b := batchOf(gs)
				h := c2.Forward(g, c1.Forward(g, x).ReLU()).ReLU()
				return out.Forward(pool.f(h, b, len(gs)))
			}
			opt := nn.NewAdam(params, 0.01, 0)
			for epoch := 0; epoch < 60; epoch++ {
				for lo := 0; lo < len(train); lo += 20 {
					loss := nn.CrossEntropy(forward(train[lo:lo+20]), ytrain[lo:lo+20], nil)
					opt.ZeroGrad()
					loss.Backward()
					opt.Step()
				}
			}
			var acc float64
			tensor.NoGrad(func() { acc = nn.Accuracy(forward(test), ytest, nil) })
			t.Logf("%s pooling: held-out accuracy %.3f", pool.name, acc)
			if acc < 0.95 {
				t.Errorf("GIN with %s pooling: held-out accuracy %.3f, want >= 0.95", pool.name, acc)
			}
		})
	}
}
