package nn_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestSAGEAggregateFirst is the differential test of SAGEConv's two
// orders of the mean term: with SAGEAggregateFirst on (mean(x)·WNeigh
// where that is cheaper) and off (mean(x·WNeigh) always), from the same
// parameters and input, on the CPU and on the Fake device, on a square
// graph (widening: aggregated first; narrowing: not) and on sampled
// blocks (aggregated first either way). The outputs and the gradients of
// x and of every parameter agree within rounding; where the orders
// differ, the outputs are not bit-identical (the other order did run).
func TestSAGEAggregateFirst(t *testing.T) {
	defer func(on bool) { nn.SAGEAggregateFirst = on }(nn.SAGEAggregateFirst)
	sq, err := graph.ErdosRenyiM(300, 2400, 4)
	if err != nil {
		t.Fatal(err)
	}
	big, err := graph.ErdosRenyiM(2000, 16000, 5)
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([]int, 64)
	for i := range seeds {
		seeds[i] = 7*i + 3
	}
	blocks, err := data.SampleBlocks(big, seeds, []int{10, 5}, 11)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		g       *graph.Graph
		in, out int
		differs bool
	}{
		{"square widening 12->20", sq, 12, 20, true},
		{"square narrowing 20->12", sq, 20, 12, false},
		{"block 1 16->8", blocks[0].Graph, 16, 8, true},
		{"block 2 8->5", blocks[1].Graph, 8, 5, true},
	}
	for _, dev := range []tensor.Backend{nil, &devicetest.Fake{}} {
		for _, c := range cases {
			what := fmt.Sprintf("%v, %s", dev, c.name)
			conv := nn.NewSAGEConv(c.in, c.out, "mean")
			x0 := tensor.Randn(3, c.g.NumSrc(), c.in)
			r := tensor.Randn(4, c.g.NumNodes(), c.out)
			if dev != nil {
				nn.To(conv, dev)
				x0, r = x0.To(dev), r.To(dev)
			}
			run := func(on bool) []*tensor.Tensor {
				nn.SAGEAggregateFirst = on
				for _, p := range conv.Params() {
					p.ZeroGrad()
				}
				x := x0.Detach().SetRequiresGrad(true)
				y := conv.Forward(c.g, x)
				y.Mul(r).Sum().Backward()
				out := []*tensor.Tensor{y.Detach(), x.Grad()}
				for _, p := range conv.Params() {
					out = append(out, p.Grad())
				}
				return out
			}
			first, other := run(true), run(false)
			names := []string{"output", "x's gradient", "WNeigh's gradient", "B's gradient", "WRoot's gradient"}
			for i, n := range names {
				if first[i] == nil || other[i] == nil {
					t.Fatalf("%s: no %s", what, n)
				}
				if e := devicetest.RelErr(first[i], other[i]); e > 1e-5 {
					t.Errorf("%s: %s differs between the orders by %.3g", what, n, e)
				}
			}
			same := slices.Equal(first[0].CPU().Data(), other[0].CPU().Data())
			if c.differs == same {
				t.Errorf("%s: outputs bit-identical = %t, want %t (aggregated first: %t)", what, same, !c.differs, c.differs)
			}
		}
	}
}
