package cuda

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

// TestDegreeStats checks the degree statistics a device graph keeps from
// its upload, which say where the degree-aware kernels split rows.
func TestDegreeStats(t *testing.T) {
	// 300 nodes in a ring, plus an edge from every node into node 3.
	var src, dst []int
	for u := range 300 {
		src, dst = append(src, u, u), append(dst, (u+1)%300, 3)
	}
	g, err := graph.FromEdges(300, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	in, out := degreeStatsOf(g.Indptr), degreeStatsOf(g.Transpose().Indptr)
	if want := (degreeStats{rows: 300, edges: 600, max: 301, heavy: 1, heavyEdges: 301}); in != want {
		t.Errorf("degreeStatsOf(in) = %+v, want %+v", in, want)
	}
	if out.heavy != 0 || out.max != 2 || out.edges != 600 {
		t.Errorf("degreeStatsOf(out) = %+v, want no heavy row, max 2, 600 edges", out)
	}
	for _, tc := range []struct {
		s    degreeStats
		want string
	}{
		{in, "mean degree 2.0, max 301: 1 rows over 128 edges (50.2% of the edges) split into edge tiles"},
		{out, "mean degree 2.0, max 2: a lane group per row"},
		{degreeStats{}, "mean degree 0.0, max 0: a lane group per row"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.s, got, tc.want)
		}
	}
}
