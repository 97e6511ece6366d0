package main

import (
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestSAGEStep runs sampledSAGE's training step on the CPU over a few
// batches of a small random graph: the blocks, features and labels line
// up with the three layers, and the loss is finite.
func TestSAGEStep(t *testing.T) {
	g, err := graph.ErdosRenyiM(500, 4000, 3)
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([]int, 500)
	y := make([]int, 500)
	for i := range seeds {
		seeds[i], y[i] = i, i%7
	}
	l, err := data.NewNeighborLoader(g, tensor.Randn(1, 500, 12), y, seeds, data.NeighborLoaderOptions{BatchSize: 64, Fanouts: []int{15, 10, 5}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	step := sageStep(nil, 12, 16, 7, false)
	it := l.Iter()
	defer it.Close()
	n := 0
	for it.Next() && n < 3 {
		if loss := step(it.Batch()); math.IsNaN(float64(loss)) || math.IsInf(float64(loss), 0) {
			t.Fatalf("batch %d: loss %v", n, loss)
		}
		n++
	}
	if err := it.Err(); err != nil || n != 3 {
		t.Fatalf("%d batches, error %v", n, err)
	}
}

// TestSAGEAggrFirst: the aggregate-first layer of the sampled part's
// variant is nn.SAGEConv's function on a sampled block.
func TestSAGEAggrFirst(t *testing.T) {
	g, err := graph.ErdosRenyiM(400, 3000, 5)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := data.SampleBlocks(g, []int{1, 2, 3, 50, 399}, []int{6, 4}, 2)
	if err != nil {
		t.Fatal(err)
	}
	c := nn.NewSAGEConv(12, 8, "mean")
	x := tensor.Randn(3, len(blocks[0].SrcNodes), 12)
	for _, b := range blocks[:1] {
		want := c.Forward(b.Graph, x).Data()
		got := sageAggrFirst(c, b.Graph, x).Data()
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-5 {
				t.Fatalf("value %d: aggregate first %v, nn.SAGEConv %v", i, got[i], want[i])
			}
		}
	}
}
