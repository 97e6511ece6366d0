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

// TestSAGEFreeSums is the differential test of SAGEFreeSums: a 3-layer
// GraphSAGE (mean) step over sampled blocks on the Fake device, whose
// freed memory panics when read, from the same parameters and input with
// the switch off and on, in float32 and under Autocast(BFloat16). The
// logits and every gradient are bit-identical (the same ops in the same
// order), and with it on the device holds exactly three ndst×out
// matrices a layer less after the step (Held: what the code gave back
// itself, the collector aside).
func TestSAGEFreeSums(t *testing.T) {
	defer func(on bool) { nn.SAGEFreeSums = on }(nn.SAGEFreeSums)
	// The composed ops, whose terms SAGEFreeSums frees (in float32, the
	// fused op makes none).
	defer func(on bool) { nn.SAGEFused = on }(nn.SAGEFused)
	nn.SAGEFused = false
	g, err := graph.ErdosRenyiM(3000, 30000, 6)
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([]int, 50)
	for i := range seeds {
		seeds[i] = 11*i + 1
	}
	blocks, err := data.SampleBlocks(g, seeds, []int{6, 4, 3}, 5)
	if err != nil {
		t.Fatal(err)
	}
	dims := []int{12, 20, 20, 5}
	fake := &devicetest.Fake{}
	var convs []*nn.SAGEConv
	var params []*tensor.Tensor
	for i := 0; i+1 < len(dims); i++ {
		c := nn.NewSAGEConv(dims[i], dims[i+1], "mean")
		nn.To(c, fake)
		convs = append(convs, c)
		params = append(params, c.Params()...)
	}
	x := tensor.Randn(7, blocks[0].Graph.NumSrc(), dims[0]).To(fake)
	y := make([]int, len(seeds))
	for i := range y {
		y[i] = i % dims[len(dims)-1]
	}
	run := func(on bool) (out [][]float32, held int64) {
		nn.SAGEFreeSums = on
		for _, p := range params {
			p.ZeroGrad()
		}
		fake.ResetPeak()
		h := x
		for i, c := range convs {
			h = c.Forward(blocks[i].Graph, h)
			if i < len(convs)-1 {
				h = h.ReLU()
			}
		}
		nn.CrossEntropy(h, y, nil).Backward()
		held = fake.MemStats().Held
		out = append(out, h.CPU().Data())
		for _, p := range params {
			out = append(out, p.Grad().CPU().Data())
		}
		return out, held
	}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
		var off, on [][]float32
		var heldOff, heldOn int64
		tensor.Autocast(dt, func() {
			off, heldOff = run(false)
			on, heldOn = run(true)
		})
		for i := range off {
			if !slices.Equal(off[i], on[i]) {
				t.Errorf("%v: value %d (0: logits, then the parameters' gradients) differs with SAGEFreeSums on", dt, i)
			}
		}
		var want int64
		for i, bl := range blocks {
			want += 3 * int64(dt.Size()) * int64(bl.Graph.NumNodes()*dims[i+1])
		}
		if heldOff-heldOn != want {
			t.Errorf("%v: Held after the step: %d bytes off, %d on: %d fewer, want %d (three ndst×out terms a layer)", dt, heldOff, heldOn, heldOff-heldOn, want)
		}
	}
}
