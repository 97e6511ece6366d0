package main

import "testing"

// TestRMAT checks the R-MAT graph's shape: undirected (the transpose
// holds the same rows), no repeated edge, one self-loop per node, about
// 2·16·2^scale edges before duplicates, and a hub far above the mean.
func TestRMAT(t *testing.T) {
	const scale = 12
	g := rmat(scale, 1)
	n := 1 << scale
	if g.n != n {
		t.Fatalf("rmat(%d): %d nodes, want %d", scale, g.n, n)
	}
	seen := map[[2]int32]bool{}
	for v := 0; v < n; v++ {
		loops := 0
		for p := g.indptr[v]; p < g.indptr[v+1]; p++ {
			e := [2]int32{g.idx[p], int32(v)}
			if seen[e] {
				t.Fatalf("edge %d->%d twice", e[0], v)
			}
			seen[e] = true
			if g.idx[p] == int32(v) {
				loops++
			}
		}
		if loops != 1 {
			t.Fatalf("node %d has %d self-loops, want 1", v, loops)
		}
	}
	for e := range seen {
		if !seen[[2]int32{e[1], e[0]}] {
			t.Fatalf("edge %d->%d without its reverse", e[0], e[1])
		}
	}
	if e := len(g.idx); e < n*rmatEdgeFactor || e > 2*rmatEdgeFactor*n+n {
		t.Errorf("rmat(%d): %d edges, want between %d and %d", scale, e, n*rmatEdgeFactor, 2*rmatEdgeFactor*n+n)
	}
	if mean, most := len(g.idx)/n, g.maxDegree(); most < 20*mean {
		t.Errorf("rmat(%d): max in-degree %d, mean %d: no hub", scale, most, mean)
	}
}
