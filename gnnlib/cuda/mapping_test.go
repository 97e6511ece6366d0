package cuda

import (
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

// TestMapping checks that Device.Mapping (what %gpu prints) lists a graph
// on the device with the mapping its degrees chose — a star's 300-edge
// in-row split into edge tiles, its out-rows one lane group each — that
// it follows SplitHeavyRows, counts launches, and forgets a freed graph.
func TestMapping(t *testing.T) {
	d := openOrSkip(t)
	const n = 301
	indptr := []int{0, n - 1}
	var idx []int
	for v := 1; v < n; v++ {
		idx = append(idx, v)
	}
	for v := 1; v < n; v++ {
		idx = append(idx, v)
		indptr = append(indptr, len(idx))
	}
	hg, err := graph.FromCSR(n, indptr, idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGraph(d, hg)
	if err != nil {
		t.Fatal(err)
	}
	m := d.Mapping()
	t.Logf("Mapping():\n%s", m)
	for _, want := range []string{
		"301 nodes, 600 edges; by destination: mean degree 2.0, max 300: 1 rows over 128 edges",
		"split into edge tiles; by source: mean degree 2.0, max 2: a lane group per row",
		"attention: degree-aware",
		"graphs on the device: 1",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("Mapping() lacks %q", want)
		}
	}
	before := d.launches.Load()
	x, err := d.Zeros(n, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Fill(1); err != nil {
		t.Fatal(err)
	}
	y, err := d.Empty(n, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := SpMM(y, g, x, SpMMAuto); err != nil {
		t.Fatal(err)
	}
	if d.launches.Load() == before {
		t.Errorf("launches stayed at %d after an SpMM", before)
	}
	SplitHeavyRows = false
	m = d.Mapping()
	SplitHeavyRows = true
	if !strings.Contains(m, "attention: off") {
		t.Errorf("Mapping() with SplitHeavyRows false:\n%s\nwant \"attention: off\"", m)
	}
	g.Free()
	if m := d.Mapping(); !strings.Contains(m, "graphs on the device: 0") {
		t.Errorf("Mapping() after Free:\n%s\nwant no graphs", m)
	}
}
