package nn_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestSAGEFused runs devicetest.CheckSAGEFused on the Fake: the fused
// SAGEConv op agrees with the composed ops, and it ran as the op it is
// (per layer, the root term's product added into the output and its
// input gradient into the aggregation's, and its weight gradient from x's
// first rows: eight layers in all). Under Autocast(BFloat16) the layer
// runs the composed ops (the prefix products are float32 only).
func TestSAGEFused(t *testing.T) {
	g, err := graph.ErdosRenyiM(600, 6000, 3)
	if err != nil {
		t.Fatal(err)
	}
	before := nn.SAGEFused
	fake := &devicetest.Fake{}
	devicetest.CheckSAGEFused(t, fake, g, 1e-5)
	if add, prod := fake.Calls("MatMulPrefixAdd"), fake.Calls("MatMulPrefix"); add != 16 || prod != 8 {
		t.Errorf("MatMulPrefixAdd ×%d, MatMulPrefix ×%d over the eight fused layers, want 16 and 8", add, prod)
	}
	half := &devicetest.Fake{}
	tensor.Autocast(tensor.BFloat16, func() { devicetest.CheckSAGEFused(t, half, g, 0) })
	if n := half.Calls("MatMulPrefixAdd") + half.Calls("MatMulPrefix"); n != 0 {
		t.Errorf("under Autocast(BFloat16) the layer made %d prefix products, want the composed ops", n)
	}
	if nn.SAGEFused != before {
		t.Errorf("CheckSAGEFused left nn.SAGEFused %v, want %v as before", nn.SAGEFused, before)
	}
}
