package cuda

import (
	"fmt"
	"math/bits"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// GraphSpMM returns A·x (or Aᵀ·x) over g for gnnlib/nn.
func (d *backend) GraphSpMM(g *graph.Graph, weighted, transpose bool, x *tensor.Tensor) (tensor.Storage, error) {
	dg, err := d.deviceGraph(g, weighted)
	if err != nil {
		return nil, err
	}
	if d.autocastBF16() {
		return d.spmmHalf(dg, transpose, x, nil) // halfstore.go
	}
	return d.spmm(dg, transpose, x)
}

// spmm returns A·x (or Aᵀ·x) over the uploaded graph dg.
func (d *Device) spmm(dg *Graph, transpose bool, x *tensor.Tensor) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	rows := dg.n
	if transpose {
		rows = dg.nsrc
	}
	out, err := d.Empty(rows, v.Cols)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	if transpose {
		return out, SpMMT(out, dg, v, SpMMAuto)
	}
	return out, SpMM(out, dg, v, SpMMAuto)
}

// meanEdgeWeights returns GraphSAGE's mean weights 1/deg(v) for each edge
// u→v, in CSR order and in the order of g's transpose.
func meanEdgeWeights(g *graph.Graph) (w, tw []float32) {
	w = make([]float32, g.NumEdges())
	for v := 0; v < g.NumNodes(); v++ {
		lo, hi := g.Indptr[v], g.Indptr[v+1]
		for e := lo; e < hi; e++ {
			w[e] = 1 / float32(hi-lo)
		}
	}
	te := g.TransposeEdges()
	tw = make([]float32, len(te))
	for p, e := range te {
		tw[p] = w[e]
	}
	return w, tw
}

// GraphMeanSpMM returns the mean of the in-neighbours' rows of x over g
// (Aᵀ-direction with transpose, GraphSAGE's mean aggregation and its
// backward pass) for gnnlib/nn: an SpMM with weights 1/deg(v), uploaded
// with g at first use.
func (d *backend) GraphMeanSpMM(g *graph.Graph, transpose bool, x *tensor.Tensor) (tensor.Storage, error) {
	dg, err := d.deviceGraphMode(g, meanWeights)
	if err != nil {
		return nil, err
	}
	if d.autocastBF16() {
		return d.spmmHalf(dg, transpose, x, nil) // halfstore.go
	}
	return d.spmm(dg, transpose, x)
}

// SpMMKernel selects the thread mapping of SpMM.
type SpMMKernel int

const (
	// SpMMAuto picks SpMMVec4 when the width is a multiple of 4, else
	// SpMMWarp; the benchmark (bench/gnnbench) compares them per graph.
	SpMMAuto SpMMKernel = iota
	// SpMMVec4 gives each row a group of min(32, F/4) lanes that load
	// float4s, two edges in flight per lane; rows of more than 128 edges
	// are split into edge tiles summed by atomics (degree-aware).
	SpMMVec4
	// SpMMWarp gives each row a warp, one float per lane, edge ids
	// broadcast by shuffles: the textbook mapping, which SpMMAuto takes
	// for widths that are not a multiple of 4 and which the GPU notebook
	// times against SpMMVec4. Rows of more than 128 edges are split into
	// edge tiles summed by atomics, as in SpMMVec4.
	SpMMWarp
)

// SpMM computes dst[v,:] = Σ_{u→v} w_uv · x[u,:] over g (weights 1 when g is
// unweighted), as kernels.SpMM (gnnlib/graph/kernels) does on the CPU.
func SpMM(dst *Tensor, g *Graph, x *Tensor, k SpMMKernel) error {
	return spmm(dst, g.n, g.nsrc, g.indptr, g.idx, g.w, g.hv, x, k, epilogue{})
}

// SpMMBiasAct computes dst = BiasAct(SpMM(g, x), b, relu, p, seed) — a
// GCN layer's aggregation, bias, ReLU and dropout — with the element-wise
// part applied as the float4 SpMM stores each row (one pass over dst
// instead of three) when the width is a multiple of 4 and no row is heavy;
// otherwise as SpMM followed by BiasAct. Either way the result is BiasAct's
// bit for bit, dropout mask included.
func SpMMBiasAct(dst *Tensor, g *Graph, x, b *Tensor, relu bool, p float32, seed uint64) error {
	if b != nil && b.Len() != x.Cols {
		return shapeErr("SpMMBiasAct", "x %dx%d, bias %d", x.Rows, x.Cols, b.Len())
	}
	if x.Cols%4 != 0 || g.hv.n > 0 || (b != nil && b.ptr%16 != 0) {
		if err := SpMM(dst, g, x, SpMMAuto); err != nil {
			return err
		}
		return BiasAct(dst, dst, b, relu, p, seed)
	}
	return spmm(dst, g.n, g.nsrc, g.indptr, g.idx, g.w, g.hv, x, SpMMVec4, epilogue{b, relu, p, seed})
}

// epilogue is the element-wise tail spmm_vec4 may apply to its output.
type epilogue struct {
	b    *Tensor
	relu bool
	p    float32
	seed uint64
}

// SpMMT computes the transposed product dst[u,:] = Σ_{u→v} w_uv · x[v,:]
// over the cached transposed CSR: the backward pass of SpMM.
func SpMMT(dst *Tensor, g *Graph, x *Tensor, k SpMMKernel) error {
	return spmm(dst, g.nsrc, g.n, g.tptr, g.tidx, g.tw, g.thv, x, k, epilogue{})
}

func spmm(dst *Tensor, rows, srcRows int, indptr, idx, w *buffer, hv heavyRows, x *Tensor, k SpMMKernel, ep epilogue) error {
	d, err := sameDev("SpMM", dst, x)
	if err != nil {
		return err
	}
	f := x.Cols
	if x.Rows != srcRows || dst.Rows != rows || dst.Cols != f {
		return shapeErr("SpMM", "graph %d<-%d nodes, x %dx%d, dst %dx%d", rows, srcRows, x.Rows, x.Cols, dst.Rows, dst.Cols)
	}
	if k == SpMMAuto {
		k = SpMMWarp
		if f%4 == 0 {
			k = SpMMVec4
		}
	}
	switch k {
	case SpMMVec4:
		if f%4 != 0 {
			return shapeErr("SpMM", "SpMMVec4 needs a width divisible by 4, got %d", f)
		}
		g := min(32, 1<<(bits.Len(uint(f/4))-1))
		const block = 256
		groups := int64(rows)
		grid := d.gridFor(groups*int64(g), block)
		tile := 0
		if hv.n > 0 {
			tile = heavyTile
		}
		var b uintptr
		if ep.b != nil {
			b = ep.b.ptr
		}
		if err := d.launch("spmm_vec4", grid, block, indptr, idx, ptrOf(w), x, dst, rows, f, g, tile, b, ep.relu, ep.p, ep.seed); err != nil || tile == 0 {
			return err
		}
		return d.launch("spmm_heavy_vec4", hv.ntiles, min(256, (f/4+31)/32*32), indptr, idx, ptrOf(w), x, dst, hv.heavy, hv.tiles, hv.n, f, heavyTile)
	case SpMMWarp:
		const block = 256
		grid := d.gridFor(int64(rows)*32, block)
		tile := 0
		if hv.n > 0 {
			tile = heavyTile
		}
		if err := d.launch("spmm_warp", grid, block, indptr, idx, ptrOf(w), x, dst, rows, f, tile); err != nil || tile == 0 {
			return err
		}
		return d.launch("spmm_heavy_warp", hv.ntiles, min(256, (f+31)/32*32), indptr, idx, ptrOf(w), x, dst, hv.heavy, hv.tiles, hv.n, f, heavyTile)
	}
	return fmt.Errorf("gnnlib/cuda: SpMM: unknown kernel %d", k)
}

// GraphSpMMBias returns A·x + b, b broadcast over the rows, the bias added
// as the SpMM stores each row (SpMMBiasAct): gnnlib/nn's GraphSpMMBiasOps,
// GCNConv's propagation without the intermediate A·x.
func (d *backend) GraphSpMMBias(g *graph.Graph, weighted bool, x, b *tensor.Tensor) (tensor.Storage, error) {
	dg, err := d.deviceGraph(g, weighted)
	if err != nil {
		return nil, err
	}
	if d.autocastBF16() {
		return d.spmmHalf(dg, false, x, b) // halfstore.go
	}
	vs, err := d.views(x, b)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(dg.n, vs[0].Cols)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	bias := &Tensor{buf: vs[1].buf, ptr: vs[1].ptr, Rows: 1, Cols: vs[1].Len()}
	return out, SpMMBiasAct(out, dg, vs[0], bias, false, 0, 0)
}
