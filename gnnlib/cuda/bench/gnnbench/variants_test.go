package main

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// TestEdgeVariant checks the switches each -gatv2-variants value sets
// (edgeVariant, variantBase), and that the empty value turns them all
// off again.
func TestEdgeVariant(t *testing.T) {
	defer edgeVariant("")
	for _, c := range []struct {
		v, base, edgeV  string
		edge, red, auto bool
	}{
		{"", "", "", false, false, false},
		{"lb3", "lb3", "", false, false, false},
		{"red", "", "", false, true, false},
		{"lb3-red", "lb3", "", false, true, false},
		{"edge", "edge", "", true, false, false},
		{"edge-red", "edge", "", true, true, false},
		{"edge-lb3", "edge-lb3", "lb3", true, false, false},
		{"edge-e1-red", "edge-e1", "e1", true, true, false},
		{"edge-bal", "edge-bal", "bal", true, false, false},
		{"edge-bal-red", "edge-bal", "bal", true, true, false},
		{"auto", "", "", false, false, true},
		{"auto-red", "", "", false, true, true},
	} {
		edge := edgeVariant(c.v)
		if edge != c.edge || tune.GATv2EdgeCoef != c.edge || tune.GATv2DattBlock != c.red || tune.GATv2EdgeAuto != c.auto || tune.GATv2EdgeVariant != c.edgeV {
			t.Errorf("edgeVariant(%q) = %t: GATv2EdgeCoef %t, GATv2DattBlock %t, GATv2EdgeAuto %t, GATv2EdgeVariant %q; want %t, %t, %t, %t, %q",
				c.v, edge, tune.GATv2EdgeCoef, tune.GATv2DattBlock, tune.GATv2EdgeAuto, tune.GATv2EdgeVariant, c.edge, c.edge, c.red, c.auto, c.edgeV)
		}
		if got := variantBase(c.v); got != c.base {
			t.Errorf("variantBase(%q) = %q, want %q", c.v, got, c.base)
		}
	}
	edgeVariant("")
	if tune.GATv2EdgeCoef || tune.GATv2DattBlock || tune.GATv2EdgeAuto || tune.GATv2EdgeVariant != "" {
		t.Errorf("edgeVariant(\"\") left switches on")
	}
}
