package cuda

import (
	"fmt"
	"math"
	"weak"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

// Graph is a graph.Graph on the device: its CSR by destination and, built
// once when the graph is uploaded and cached for every backward pass, its
// transpose (CSR by source). Indices are int32 on the device.
type Graph struct {
	dev            *Device
	n, nsrc, edges int
	indptr, idx, w *buffer
	tptr, tidx, tw *buffer
	// heavy rows of the degree-aware kernels, listed at upload.
	maxTile int
	heavy   *buffer
	tiles   *buffer
	nheavy  int
	ntiles  int
	hv, thv heavyRows
	// in and out describe the rows of each direction (CSR by destination,
	// its transpose) at upload: what the degree-aware kernels chose.
	in, out degreeStats
	// tperm maps each position of the transpose to its CSR edge, built on
	// the device at the first GATv2 backward pass that saves edges.
	tperm *buffer
}

// heavyRows lists the rows of more than heavyTile edges and the index of
// each one's first edge tile.
type heavyRows struct {
	heavy, tiles *buffer
	n, ntiles    int
}

func heavyRowsOf[I int | int32](indptr []I) (heavy, tiles []int32, ntiles int) {
	for v := 0; v+1 < len(indptr); v++ {
		if deg := int(indptr[v+1] - indptr[v]); deg > heavyTile {
			heavy = append(heavy, int32(v))
			tiles = append(tiles, int32(ntiles))
			ntiles += (deg + heavyTile - 1) / heavyTile
		}
	}
	return heavy, tiles, ntiles
}

func (d *Device) heavyRows(indptr any) (heavyRows, error) {
	var h heavyRows
	var heavy, tiles []int32
	switch p := indptr.(type) {
	case []int:
		heavy, tiles, h.ntiles = heavyRowsOf(p)
	case []int32:
		heavy, tiles, h.ntiles = heavyRowsOf(p)
	}
	h.n = len(heavy)
	if h.n == 0 {
		return h, nil
	}
	var err error
	if h.heavy, err = d.uploadInts(heavy); err != nil {
		return h, err
	}
	h.tiles, err = d.uploadInts(tiles)
	return h, err
}

// degreeStats summarises the row lengths of one direction of a graph as
// the degree-aware kernels (SpMM in both mappings, the max aggregation,
// the fused attention passes unless SplitHeavyRows is off) see them at
// upload: rows of more than heavyTile edges are heavy and split into edge
// tiles (summed by atomics, or merged from their partial softmax states
// and sums by attnrows.go's passes), the others get one lane group (or
// warp) each.
type degreeStats struct {
	rows, edges, max  int
	heavy, heavyEdges int // rows over heavyTile edges, and their edges
}

func degreeStatsOf[I int | int32](indptr []I) degreeStats {
	s := degreeStats{rows: len(indptr) - 1}
	for v := 0; v+1 < len(indptr); v++ {
		deg := int(indptr[v+1] - indptr[v])
		s.edges += deg
		s.max = max(s.max, deg)
		if deg > heavyTile {
			s.heavy++
			s.heavyEdges += deg
		}
	}
	return s
}

func (s degreeStats) String() string {
	mean := 0.0
	if s.rows > 0 {
		mean = float64(s.edges) / float64(s.rows)
	}
	if s.heavy == 0 {
		return fmt.Sprintf("mean degree %.1f, max %d: a lane group per row", mean, s.max)
	}
	return fmt.Sprintf("mean degree %.1f, max %d: %d rows over %d edges (%.1f%% of the edges) split into edge tiles",
		mean, s.max, s.heavy, heavyTile, 100*float64(s.heavyEdges)/float64(max(s.edges, 1)))
}

// NumNodes, NumSrc and NumEdges mirror graph.Graph's.
func (g *Graph) NumNodes() int { return g.n }

func (g *Graph) NumSrc() int { return g.nsrc }

func (g *Graph) NumEdges() int { return g.edges }

// String summarises g and the thread mapping its degrees chose at upload,
// by destination (the forward aggregation) and by source (the backward
// pass over the transpose), e.g.
//
//	cuda.Graph(nodes=300, edges=1800; in: mean degree 6.0, max 300: 1 rows over 128 edges (16.7% of the edges) split into edge tiles; out: mean degree 6.0, max 13: a lane group per row)
func (g *Graph) String() string {
	return fmt.Sprintf("cuda.Graph(nodes=%d, edges=%d; in: %v; out: %v)", g.n, g.edges, g.in, g.out)
}

// NewGraph uploads g and its cached transpose (g.Transpose(), with the edge
// weights following their edges). It fails if g has 2^31 edges or more.
func NewGraph(d *Device, g *graph.Graph) (*Graph, error) {
	t := g.Transpose()
	return NewGraphCSR(d, g.NumSrc(), g.Indptr, g.Indices, g.Weights, t.Indptr, t.Indices, t.Weights)
}

// NewGraphCSR uploads a graph given as CSR by destination (indptr over the
// destinations, indices the sources) and its transpose; w and tw are the
// edge weights in each order, or both nil. It is the fast path for graphs
// built outside gnnlib/graph (the benchmark's 124M-edge graphs).
func NewGraphCSR[I int | int32](d *Device, nsrc int, indptr, indices []I, w []float32, tindptr, tindices []I, tw []float32) (*Graph, error) {
	n := len(indptr) - 1
	e := len(indices)
	if int64(e) >= math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d edges, at most 2^31-1 supported", ErrShape, e)
	}
	if len(tindptr) != nsrc+1 || len(tindices) != e || (w == nil) != (tw == nil) || (w != nil && (len(w) != e || len(tw) != e)) {
		return nil, fmt.Errorf("%w: NewGraphCSR: inconsistent CSR and transpose", ErrShape)
	}
	g := &Graph{dev: d, n: n, nsrc: nsrc, edges: e}
	var err error
	up := func(x []I) *buffer {
		if err != nil {
			return nil
		}
		var b *buffer
		b, err = d.uploadInts(toInt32(x))
		return b
	}
	upw := func(x []float32) *buffer {
		if err != nil || x == nil {
			return nil
		}
		t, e2 := d.FromHost(x, 1, len(x))
		if e2 != nil {
			err = e2
			return nil
		}
		return t.buf
	}
	g.indptr, g.idx, g.w = up(indptr), up(indices), upw(w)
	g.tptr, g.tidx, g.tw = up(tindptr), up(tindices), upw(tw)
	// Rows longer than one edge tile are the heavy rows of the degree-aware
	// kernels; list them and their first tile once here, in both orders.
	g.maxTile = heavyTile
	g.in, g.out = degreeStatsOf(indptr), degreeStatsOf(tindptr)
	if err == nil {
		g.hv, err = d.heavyRows(any(indptr))
	}
	if err == nil {
		g.thv, err = d.heavyRows(any(tindptr))
	}
	g.heavy, g.tiles, g.nheavy, g.ntiles = g.hv.heavy, g.hv.tiles, g.hv.n, g.hv.ntiles
	if err != nil {
		g.Free()
		return nil, err
	}
	d.graphList.add(g)
	return g, nil
}

// heavyTile is the edge-tile length of the degree-aware max aggregation:
// rows with more in-edges are split into tiles of this many edges.
const heavyTile = 128

func toInt32[I int | int32](x []I) []int32 {
	if y, ok := any(x).([]int32); ok {
		return y
	}
	y := make([]int32, len(x))
	for i, v := range x {
		y[i] = int32(v)
	}
	return y
}

// Free releases the graph's device memory.
func (g *Graph) Free() {
	g.dev.graphList.remove(weak.Make(g))
	for _, b := range []*buffer{g.indptr, g.idx, g.w, g.tptr, g.tidx, g.tw, g.hv.heavy, g.hv.tiles, g.thv.heavy, g.thv.tiles, g.tperm} {
		if b != nil {
			b.release()
		}
	}
}

// Weighted reports whether the graph carries edge weights.
func (g *Graph) Weighted() bool { return g.w != nil }

func ptrOf(b *buffer) uintptr {
	if b == nil {
		return 0
	}
	return b.ptr
}

// transposePerm returns, for each position of the transposed CSR, the
// CSR edge it holds, computed on the device at first use and kept with the
// graph (4 bytes an edge): the k-th edge from u in v's row is the k-th v
// in u's transposed row.
func (g *Graph) transposePerm() (*buffer, error) {
	if g.tperm != nil {
		return g.tperm, nil
	}
	d := g.dev
	t, err := d.Empty(1, max(g.edges, 1))
	if err != nil {
		return nil, err
	}
	bad, err := d.Zeros(1, 1)
	if err != nil {
		t.Free()
		return nil, err
	}
	defer bad.Free()
	if err := d.launch("transpose_perm", d.gridFor(int64(g.n), 256), 256, g.indptr, g.idx, g.tptr, g.tidx, t, bad, g.n); err != nil {
		t.Free()
		return nil, err
	}
	flag, err := bad.Host()
	if err != nil {
		t.Free()
		return nil, err
	}
	if flag[0] != 0 {
		t.Free()
		return nil, fmt.Errorf("%w: the graph's transposed CSR does not hold the same edges as its CSR", ErrShape)
	}
	g.tperm = t.buf
	return g.tperm, nil
}

// IsSquare reports whether sources and destinations are one node set.
func (g *Graph) IsSquare() bool { return g.n == g.nsrc }
