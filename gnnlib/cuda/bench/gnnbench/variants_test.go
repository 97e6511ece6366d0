package main

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// TestEdgeVariant checks the switches each -gatv2-variants value sets
// (edgeVariant, variantBase): a value that names a switch sets it, and
// every other switch keeps the library's default, so that the empty
// value and the plain kernel variants time the layers as a notebook
// runs them. The first version turned tune.GATv2DattBlock off for them,
// which stayed so when its default became on: the gat and gatv2 parts
// timed the current kernels without it.
func TestEdgeVariant(t *testing.T) {
	defer edgeVariant("")
	if !tune.GATv2DattBlock || !tune.GATv2EdgeAuto || tune.GATv2EdgeCoef || tune.GATv2EdgeVariant != "balcp" {
		t.Fatalf("the library's defaults changed (GATv2DattBlock %t, GATv2EdgeAuto %t, GATv2EdgeCoef %t, GATv2EdgeVariant %q): update the cases",
			tune.GATv2DattBlock, tune.GATv2EdgeAuto, tune.GATv2EdgeCoef, tune.GATv2EdgeVariant)
	}
	for _, c := range []struct {
		v, base, edgeV        string
		edge, coef, red, auto bool
	}{
		{"", "", "balcp", false, false, true, true},
		{"lb3", "lb3", "balcp", false, false, true, true},
		{"red", "", "balcp", false, false, true, true},
		{"nored", "", "balcp", false, false, false, true},
		{"lb3-red", "lb3", "balcp", false, false, true, true},
		{"lb4-nored", "lb4", "balcp", false, false, false, true},
		{"noedge", "", "balcp", false, false, true, false},
		{"noedge-nored", "", "balcp", false, false, false, false},
		{"edge", "edge", "", true, true, true, true},
		{"edge-red", "edge", "", true, true, true, true},
		{"edge-nored", "edge", "", true, true, false, true},
		{"edge-lb3", "edge-lb3", "lb3", true, true, true, true},
		{"edge-e1-red", "edge-e1", "e1", true, true, true, true},
		{"edge-bal", "edge-bal", "bal", true, true, true, true},
		{"edge-bal-nored", "edge-bal", "bal", true, true, false, true},
		{"edge-balcp", "edge-balcp", "balcp", true, true, true, true},
		{"edge-balcp-nored", "edge-balcp", "balcp", true, true, false, true},
		{"auto", "", "balcp", false, false, true, true},
		{"noauto", "", "balcp", false, false, true, false},
		{"noauto-nored", "", "balcp", false, false, false, false},
	} {
		edge := edgeVariant(c.v)
		if edge != c.edge || tune.GATv2EdgeCoef != c.coef || tune.GATv2DattBlock != c.red || tune.GATv2EdgeAuto != c.auto || tune.GATv2EdgeVariant != c.edgeV {
			t.Errorf("edgeVariant(%q) = %t: GATv2EdgeCoef %t, GATv2DattBlock %t, GATv2EdgeAuto %t, GATv2EdgeVariant %q; want %t, %t, %t, %t, %q",
				c.v, edge, tune.GATv2EdgeCoef, tune.GATv2DattBlock, tune.GATv2EdgeAuto, tune.GATv2EdgeVariant, c.edge, c.coef, c.red, c.auto, c.edgeV)
		}
		if got := variantBase(c.v); got != c.base {
			t.Errorf("variantBase(%q) = %q, want %q", c.v, got, c.base)
		}
	}
	edgeVariant("")
	if tune.GATv2EdgeCoef || !tune.GATv2DattBlock || !tune.GATv2EdgeAuto || tune.GATv2EdgeVariant != "balcp" {
		t.Errorf("edgeVariant(\"\") did not restore the defaults")
	}
}
