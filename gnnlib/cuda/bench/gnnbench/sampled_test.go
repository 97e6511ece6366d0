package main

import (
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestSAGEStep runs sampledSAGE's training step on the CPU over a few
// batches of a small random graph, in float32 and under
// Autocast(BFloat16) (stepBF16): the blocks, features and labels line up
// with the three layers, and the loss is finite.
func TestSAGEStep(t *testing.T) {
	for _, bf16 := range []bool{false, true} {
		stepBF16 = bf16
		sageSteps(t)
	}
	stepBF16 = false
}

func sageSteps(t *testing.T) {
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
	step := sageStep(nil, 12, 16, 7)
	it := l.Iter()
	defer it.Close()
	n := 0
	for it.Next() && n < 3 {
		if loss := step(it.Batch()); math.IsNaN(float64(loss)) || math.IsInf(float64(loss), 0) {
			t.Fatalf("batch %d (bfloat16 %t): loss %v", n, stepBF16, loss)
		}
		n++
	}
	if err := it.Err(); err != nil || n != 3 {
		t.Fatalf("%d batches, error %v", n, err)
	}
}
