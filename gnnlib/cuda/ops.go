package cuda

import (
	"fmt"
	"math"
	"math/bits"
)

func sameDev(op string, ts ...*Tensor) (*Device, error) {
	var d *Device
	for _, t := range ts {
		if t == nil {
			continue
		}
		if d == nil {
			d = t.buf.dev
		} else if t.buf.dev != d {
			return nil, fmt.Errorf("gnnlib/cuda: %s: operands on different devices", op)
		}
	}
	return d, nil
}

func shapeErr(op string, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrShape, op, fmt.Sprintf(format, args...))
}

// GEMMKernel names a family of MatMul kernels in kernels/gnn.cu.
type GEMMKernel string

const (
	// GEMMv1 is gemm_*: 128x128 tiles, BK = 8, 8x8 outputs per thread,
	// scalar global loads, double-buffered shared memory.
	GEMMv1 GEMMKernel = "v1"
	// GEMMv2 is gemm2_*: the same tiling with BK = 16, float4 global loads
	// and stores where the shapes allow (the _v4 entry points), both
	// operands k-major in padded shared memory and warp-shaped thread
	// patches (see gnn.cu).
	GEMMv2 GEMMKernel = "v2"
	// GEMMv2K8 is GEMMv2 with BK = 8 (gemm2k8_*), kept to compare.
	GEMMv2K8 GEMMKernel = "v2k8"
	// GEMMv2N is GEMMv2 with a narrow-output tile: products whose output
	// has at most 64 columns (a class layer's x·W, its weight gradient
	// Xᵀ·dY with split-K, dY·Wᵀ into a narrow input) run gemm2n_*, 256x64
	// tiles with 8x8 outputs per thread, so a 47- or 48-wide output fills
	// 48 of 64 columns rather than 48 of 128; wider outputs run gemm2_*.
	GEMMv2N GEMMKernel = "v2n"
)

// narrowN is the widest output GEMMv2N sends to the narrow tile, its BN.
const narrowN = 64

// MatMulKernel is the kernel family MatMul launches. It is a package
// variable so that benchmarks and tests can compare the families; set it
// before work is queued, not concurrently with MatMul calls. The default is
// GEMMv2N: on the H200 GEMMv2 passed the same tests as GEMMv1 and ran every
// layer shape measured 1.03-1.40x faster, and the narrow tile passed them
// too and ran the 47/48-wide products 1.6-1.8x faster than GEMMv2
// (BENCHMARKS.md).
var MatMulKernel = GEMMv2N

// MatMul computes dst = op(a)·op(b), where op transposes when transA or
// transB is set, with the package's tiled kernel (128x128 tiles, or
// 256x64 for narrow outputs under GEMMv2N; 8x8 per thread, float32 FMA;
// no tensor cores; MatMulKernel picks the version).
// When the product's output has few tiles and the inner dimension is long
// — the weight gradient Xᵀ·dY of a GNN layer — K is split across blocks
// that add into dst atomically.
func MatMul(dst, a, b *Tensor, transA, transB bool) error {
	return matMulWith(MatMulKernel, dst, a, b, transA, transB)
}

func matMulWith(kern GEMMKernel, dst, a, b *Tensor, transA, transB bool) error {
	d, err := sameDev("MatMul", dst, a, b)
	if err != nil {
		return err
	}
	m, k := a.Rows, a.Cols
	if transA {
		m, k = k, m
	}
	k2, n := b.Rows, b.Cols
	if transB {
		k2, n = n, k2
	}
	if k != k2 || dst.Rows != m || dst.Cols != n {
		return shapeErr("MatMul", "%dx%d (T=%v) · %dx%d (T=%v) into %dx%d", a.Rows, a.Cols, transA, b.Rows, b.Cols, transB, dst.Rows, dst.Cols)
	}
	if transA && transB {
		return shapeErr("MatMul", "both operands transposed is not supported")
	}
	form := "nn"
	switch {
	case transA:
		form = "tn"
	case transB:
		form = "nt"
	}
	// kt is the kernel's k-tile depth: split-K chunks are multiples of it,
	// so every chunk but the last is whole tiles.
	// bm x bn is the block tile, which sets the grid.
	var kernel string
	kt, bm, bn := 8, 128, 128
	switch kern {
	case GEMMv1:
		kernel = "gemm_" + form
	case GEMMv2, GEMMv2K8, GEMMv2N:
		kernel = "gemm2_" + form
		kt = 16
		switch {
		case kern == GEMMv2K8:
			kernel = "gemm2k8_" + form
			kt = 8
		case kern == GEMMv2N && n <= narrowN:
			kernel = "gemm2n_" + form
			bm, bn = 256, narrowN
		}
		if vec4(m, n, k, transA, transB, a, b, dst) {
			kernel += "_v4"
		}
	default:
		return fmt.Errorf("gnnlib/cuda: MatMul: unknown GEMMKernel %q", kern)
	}
	tiles := ((m + bm - 1) / bm) * ((n + bn - 1) / bn)
	split := 1
	if want := 2 * d.nsm; tiles < want && k >= 4096 {
		split = min((want+tiles-1)/tiles, k/1024)
	}
	chunk := (k + split - 1) / split
	chunk = (chunk + kt - 1) / kt * kt
	split = (k + chunk - 1) / chunk
	atomic := 0
	if split > 1 {
		atomic = 1
		if err := dst.Fill(0); err != nil {
			return err
		}
	}
	return d.launch3(kernel, [3]int{(n + bn - 1) / bn, (m + bm - 1) / bm, split}, [3]int{256, 1, 1},
		a, b, dst, m, n, k, chunk, atomic)
}

// vec4 reports whether gemm2's float4 entry points apply: every row a
// thread reads or writes with float4 must start 16-byte aligned, so each
// operand's contiguous extent (K for A in NN/NT and B in NT, M for A in
// TN, N for B in NN/TN and for C) must be a multiple of 4, as must the
// base addresses. Split-K chunks are multiples of the k-tile, so chunk
// boundaries keep that alignment.
func vec4(m, n, k int, transA, transB bool, ts ...*Tensor) bool {
	for _, t := range ts {
		if t.ptr%16 != 0 {
			return false
		}
	}
	if n%4 != 0 {
		return false
	}
	if transA {
		if m%4 != 0 {
			return false
		}
	} else if k%4 != 0 {
		return false
	}
	return !transB || k%4 == 0
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
	// broadcast by shuffles.
	SpMMWarp
)

// SpMM computes dst[v,:] = Σ_{u→v} w_uv · x[u,:] over g (weights 1 when g is
// unweighted), as graph.Graph.SpMM does on the CPU.
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
		return d.launch("spmm_warp", grid, block, indptr, idx, ptrOf(w), x, dst, rows, f)
	}
	return fmt.Errorf("gnnlib/cuda: SpMM: unknown kernel %d", k)
}

// gatShape returns the group width G and float4s per lane for C channels.
func gatShape(c int) (g, vpl int, ok bool) {
	switch c {
	case 8:
		return 2, 1, true
	case 16:
		return 4, 1, true
	case 32:
		return 8, 1, true
	case 64:
		return 16, 1, true
	case 128:
		return 32, 1, true
	case 256:
		return 32, 2, true
	case 512:
		return 32, 4, true
	}
	return 0, 0, false
}

// GATv2 holds what the fused GATv2 attention keeps between forward and
// backward: the output and one log-sum-exp per (node, head) — no per-edge
// tensor. Between its two backward passes it holds, in the default
// saved-edge mode, each edge's attention, score gradient and sign bits.
type GATv2 struct {
	Heads, Channels int
	Slope           float32
	Out             *Tensor // N x H*C
	LSE             *Tensor // N x H
	Dropout         AttentionDropout
	d               *Tensor // N x H, dOut·Out (recomputing backward)
	eas, esign      *Tensor // per edge and head: (alpha, ds) and C sign bits (saved-edge backward)
	saved           bool    // the last BackwardDst saved the edges
}

// AttentionDropout is the dropout of attention coefficients in the fused
// GAT and GATv2 kernels (PyG's dropout argument of GATConv/GATv2Conv):
// each edge and head's weight in the output is zeroed with probability P
// and scaled by 1/(1-P) otherwise, after the softmax. The mask is a
// function of (Seed, edge, head), which the backward passes recompute; no
// mask is stored. The zero value is no dropout.
type AttentionDropout struct {
	P    float32
	Seed uint64
}

func (a AttentionDropout) check(op string) error {
	if a.P < 0 || a.P >= 1 {
		return shapeErr(op, "attention dropout probability %g not in [0, 1)", a.P)
	}
	return nil
}

// GATv2Backward selects how the GATv2 backward pass hands each edge's
// attention from its destination pass to its source pass.
type GATv2Backward int

const (
	// GATv2Auto saves the edges when they take at most 1 GiB (E·H·(8 +
	// C/8) bytes) and recomputes otherwise. On the H200, saving took an
	// arxiv-sized layer (2.5M edges, 1x256: 100 MB saved) from 5.13 to
	// 4.58 ms, while on a products-sized one (126M edges: 5 GB) the stores
	// slowed the destination pass by more than the source pass gained
	// (160.4 against 154.7 ms, and 5 GiB more memory).
	GATv2Auto GATv2Backward = iota
	// GATv2Save: the destination pass, which recomputes every edge's
	// attention anyway, stores per edge and head the attention α, its
	// score gradient ds and the signs of z = x_l[u] + x_r[v] (one bit a
	// channel: 8 + C/8 bytes, 40 bytes at C = 256, against the 1 KiB row
	// of x_r the source pass would otherwise gather) in CSR order, and the
	// source pass reads them through the graph's transpose permutation
	// (built on the device at first use, 4 bytes an edge) beside the rows
	// of dOut, its only gather of a feature row.
	GATv2Save
	// GATv2Recompute: the source pass recomputes α and ds from the
	// log-sum-exp, gathering the rows of both x_r and dOut per edge and
	// storing nothing per edge.
	GATv2Recompute
)

// GATv2BackwardMode is the GATv2 backward pass's mode; with attention
// dropout the edges are saved whatever it says. Set it before work is
// queued.
var GATv2BackwardMode = GATv2Auto

// saveEdgeLimit is the most bytes of saved edges GATv2Auto saves.
const saveEdgeLimit = 1 << 30

// mat is a row-major matrix on the device given by its first element and
// its row stride in floats: a tensor, or a column block of one.
type mat struct {
	ptr uintptr
	ld  int64
}

func matOf(t *Tensor) mat { return mat{t.ptr, int64(t.Cols)} }

// halves splits an N x 2HC tensor into its N x HC column halves.
func halves(t *Tensor, hc int) (mat, mat) {
	return mat{t.ptr, int64(t.Cols)}, mat{t.ptr + uintptr(hc)*4, int64(t.Cols)}
}

// GATv2Forward computes the attention aggregation of a GATv2 layer (Brody
// et al.; PyG's GATv2Conv with concat=True, without bias) from xlr = x·[W_l
// W_r] (N x 2HC: messages in the first HC columns, targets in the rest) and
// att (1 x HC). Each destination runs one pass over its in-edges with an
// online softmax (running max and sum in registers).
func GATv2Forward(g *Graph, xlr, att *Tensor, heads, channels int, slope float32, drop AttentionDropout) (*GATv2, error) {
	hc := heads * channels
	if xlr.Rows != g.n || xlr.Cols != 2*hc {
		return nil, shapeErr("GATv2Forward", "xlr %dx%d, graph %d nodes, heads %d x %d", xlr.Rows, xlr.Cols, g.n, heads, channels)
	}
	xl, xr := halves(xlr, hc)
	return gatv2Forward(g, xl, xr, att, heads, channels, slope, drop)
}

// GATv2ForwardLR is GATv2Forward with x_l = x·W_l and x_r = x·W_r given
// as two N x HC tensors.
func GATv2ForwardLR(g *Graph, xl, xr, att *Tensor, heads, channels int, slope float32, drop AttentionDropout) (*GATv2, error) {
	hc := heads * channels
	if xl.Rows != g.n || xr.Rows != g.n || xl.Cols != hc || xr.Cols != hc {
		return nil, shapeErr("GATv2ForwardLR", "xl %dx%d, xr %dx%d, graph %d nodes, heads %d x %d", xl.Rows, xl.Cols, xr.Rows, xr.Cols, g.n, heads, channels)
	}
	return gatv2Forward(g, matOf(xl), matOf(xr), att, heads, channels, slope, drop)
}

func gatv2Forward(g *Graph, xl, xr mat, att *Tensor, heads, channels int, slope float32, drop AttentionDropout) (*GATv2, error) {
	d := att.buf.dev
	if err := drop.check("GATv2Forward"); err != nil {
		return nil, err
	}
	hc := heads * channels
	gs, vpl, ok := gatShape(channels)
	if !ok {
		return nil, shapeErr("GATv2Forward", "channels per head %d; supported 8, 16, 32, 64, 128, 256, 512", channels)
	}
	if att.Len() != hc || !g.IsSquare() {
		return nil, shapeErr("GATv2Forward", "att %d, graph %d<-%d nodes, heads %d x %d", att.Len(), g.n, g.nsrc, heads, channels)
	}
	out, err := d.Empty(g.n, hc)
	if err != nil {
		return nil, err
	}
	lse, err := d.Empty(g.n, heads)
	if err != nil {
		out.Free()
		return nil, err
	}
	const block = 256
	grid := d.gridFor(int64(g.n)*int64(heads)*int64(gs), block)
	err = d.launch(fmt.Sprintf("gatv2_fwd_%d_%d", gs, vpl), grid, block, g.indptr, g.idx, xl.ptr, xl.ld, xr.ptr, xr.ld, att, out, lse, g.n, heads, slope, drop.P, drop.Seed)
	if err != nil {
		out.Free()
		lse.Free()
		return nil, err
	}
	return &GATv2{Heads: heads, Channels: channels, Slope: slope, Out: out, LSE: lse, Dropout: drop}, nil
}

// Backward computes the gradients of the loss with respect to xlr (into
// dxlr, N x 2HC) and att (into datt, zeroed here) given dout = dL/dOut: a
// pass over the in-edges for the target half and att (BackwardDst), then
// one over the cached transposed CSR for the message half (BackwardSrc).
func (a *GATv2) Backward(g *Graph, xlr, att, dout, dxlr, datt *Tensor) error {
	hc := a.Heads * a.Channels
	if xlr.Rows != g.n || xlr.Cols != 2*hc || dxlr.Rows != g.n || dxlr.Cols != 2*hc {
		return shapeErr("GATv2.Backward", "xlr %dx%d, dxlr %dx%d, want %dx%d", xlr.Rows, xlr.Cols, dxlr.Rows, dxlr.Cols, g.n, 2*hc)
	}
	xl, xr := halves(xlr, hc)
	dxl, dxr := halves(dxlr, hc)
	if err := a.backwardDst(g, xl, xr, att, dout, dxr, datt); err != nil {
		return err
	}
	return a.backwardSrc(g, xl, xr, att, dout, dxl)
}

// BackwardDst is the first half of the backward pass of a GATv2ForwardLR
// attention: the gradients of x_r (into dxr, N x HC) and att (into datt,
// zeroed here). It saves what BackwardSrc needs, so that a caller can
// consume dxr (a weight gradient x^T·dxr) and reuse its memory for dxl.
func (a *GATv2) BackwardDst(g *Graph, xl, xr, att, dout, dxr, datt *Tensor) error {
	hc := a.Heads * a.Channels
	if xl.Rows != g.n || xr.Rows != g.n || dxr.Rows != g.n || xl.Cols != hc || xr.Cols != hc || dxr.Cols != hc {
		return shapeErr("GATv2.BackwardDst", "xl %dx%d, xr %dx%d, dxr %dx%d, want %dx%d", xl.Rows, xl.Cols, xr.Rows, xr.Cols, dxr.Rows, dxr.Cols, g.n, hc)
	}
	return a.backwardDst(g, matOf(xl), matOf(xr), att, dout, matOf(dxr), datt)
}

// BackwardSrc is the second half: the gradient of x_l into dxl (N x HC),
// after BackwardDst. It releases what BackwardDst saved.
func (a *GATv2) BackwardSrc(g *Graph, xl, xr, att, dout, dxl *Tensor) error {
	hc := a.Heads * a.Channels
	if xl.Rows != g.n || xr.Rows != g.n || dxl.Rows != g.n || xl.Cols != hc || xr.Cols != hc || dxl.Cols != hc {
		return shapeErr("GATv2.BackwardSrc", "xl %dx%d, xr %dx%d, dxl %dx%d, want %dx%d", xl.Rows, xl.Cols, xr.Rows, xr.Cols, dxl.Rows, dxl.Cols, g.n, hc)
	}
	return a.backwardSrc(g, matOf(xl), matOf(xr), att, dout, matOf(dxl))
}

// launchShape is the launch shape of the backward passes: blocks of 256
// threads, a group of lanes per (node, head), and the kernels' name
// suffix. The destination pass's grid (dst) keeps the number of groups a
// multiple of H so that each of its lanes sees one head and can sum att's
// gradient in registers; the source pass's (src) covers every group.
func (a *GATv2) launchShape(d *Device, g *Graph) (dst, src, block int, suffix string) {
	gs, vpl, _ := gatShape(a.Channels)
	block = 256
	src = d.gridFor(int64(g.n)*int64(a.Heads)*int64(gs), block)
	dst = src
	if gpb := block / gs; (dst*gpb)%a.Heads != 0 {
		dst = max(1, dst/a.Heads*a.Heads)
	}
	return dst, src, block, fmt.Sprintf("_%d_%d", gs, vpl)
}

func (a *GATv2) backwardDst(g *Graph, xl, xr mat, att, dout *Tensor, dxr mat, datt *Tensor) error {
	d := att.buf.dev
	hc := a.Heads * a.Channels
	if dout.Rows != g.n || dout.Cols != hc || datt.Len() != hc || att.Len() != hc {
		return shapeErr("GATv2.Backward", "dout %dx%d, att %d, datt %d", dout.Rows, dout.Cols, att.Len(), datt.Len())
	}
	if err := datt.Fill(0); err != nil {
		return err
	}
	grid, _, block, suffix := a.launchShape(d, g)
	a.saved = a.saveEdges(g)
	if !a.saved {
		if a.d == nil {
			var err error
			if a.d, err = d.Empty(g.n, a.Heads); err != nil {
				return err
			}
		}
		return d.launch("gatv2_bwd_dst"+suffix, grid, block, g.indptr, g.idx, xl.ptr, xl.ld, xr.ptr, xr.ld,
			att, a.Out, a.LSE, dout, dxr.ptr, dxr.ld, a.d, datt, g.n, a.Heads, a.Slope)
	}
	a.freeEdges()
	eh := g.edges * a.Heads
	var err error
	if a.eas, err = d.Empty(eh, 2); err != nil {
		return err
	}
	// C/8 sign bytes per edge and head, in whole floats.
	if a.esign, err = d.Empty((eh*(a.Channels/8)+3)/4, 1); err != nil {
		a.freeEdges()
		return err
	}
	return d.launch("gatv2_bwd_dsts"+suffix, grid, block, g.indptr, g.idx, xl.ptr, xl.ld, xr.ptr, xr.ld,
		att, a.Out, a.LSE, dout, dxr.ptr, dxr.ld, a.eas, a.esign, datt, g.n, a.Heads, a.Slope, a.Dropout.P, a.Dropout.Seed)
}

// saveEdges reports whether a backward pass over g saves per-edge values:
// as GATv2BackwardMode says, and always with attention dropout, whose
// factors the recomputing source pass could not draw.
func (a *GATv2) saveEdges(g *Graph) bool {
	switch {
	case a.Dropout.P > 0 || GATv2BackwardMode == GATv2Save:
		return true
	case GATv2BackwardMode == GATv2Recompute:
		return false
	}
	return int64(g.edges)*int64(a.Heads)*int64(8+a.Channels/8) <= saveEdgeLimit
}

func (a *GATv2) backwardSrc(g *Graph, xl, xr mat, att, dout *Tensor, dxl mat) error {
	d := att.buf.dev
	_, grid, block, suffix := a.launchShape(d, g)
	if !a.saved {
		if a.d == nil {
			return fmt.Errorf("gnnlib/cuda: GATv2.BackwardSrc before BackwardDst")
		}
		return d.launch("gatv2_bwd_src"+suffix, grid, block, g.tptr, g.tidx, xl.ptr, xl.ld, xr.ptr, xr.ld,
			att, a.LSE, a.d, dout, dxl.ptr, dxl.ld, g.n, a.Heads, a.Slope)
	}
	if a.eas == nil {
		return fmt.Errorf("gnnlib/cuda: GATv2.BackwardSrc before BackwardDst")
	}
	defer a.freeEdges()
	tperm, err := g.transposePerm()
	if err != nil {
		return err
	}
	return d.launch("gatv2_bwd_srcs"+suffix, grid, block, g.tptr, g.tidx, tperm, a.eas, a.esign, att, dout, dxl.ptr, dxl.ld,
		g.n, a.Heads, a.Slope)
}

// freeEdges releases the saved per-edge values.
func (a *GATv2) freeEdges() {
	if a.eas != nil {
		a.eas.Free()
		a.eas = nil
	}
	if a.esign != nil {
		a.esign.Free()
		a.esign = nil
	}
}

// Free releases the saved tensors.
func (a *GATv2) Free() {
	a.Out.Free()
	a.LSE.Free()
	if a.d != nil {
		a.d.Free()
	}
	a.freeEdges()
}

// IsSquare reports whether sources and destinations are one node set.
func (g *Graph) IsSquare() bool { return g.n == g.nsrc }

// BiasAct computes y = dropout(act(x + b)) element-wise, b broadcast over
// rows (nil: no bias), act = ReLU when relu is set, dropout with
// probability p drawing its mask from (seed, index) so that nothing is
// stored for the backward pass. y may be x.
func BiasAct(y, x, b *Tensor, relu bool, p float32, seed uint64) error {
	d, err := sameDev("BiasAct", y, x, b)
	if err != nil {
		return err
	}
	if y.Len() != x.Len() || (b != nil && b.Len() != x.Cols) {
		return shapeErr("BiasAct", "x %dx%d, y %dx%d", x.Rows, x.Cols, y.Rows, y.Cols)
	}
	n := int64(x.Len())
	return d.launch("bias_act", d.gridFor(n, 256), 256, x, b, y, n, x.Cols, relu, p, seed)
}

// ActBackward computes dx = g masked by BiasAct's output y: zero where y is
// zero (ReLU off or dropped), g/(1-p) elsewhere.
func ActBackward(dx, y, g *Tensor, relu bool, p float32) error {
	d, err := sameDev("ActBackward", dx, y, g)
	if err != nil {
		return err
	}
	n := int64(y.Len())
	if dx.Len() != y.Len() || g.Len() != y.Len() {
		return shapeErr("ActBackward", "lengths %d, %d, %d", dx.Len(), y.Len(), g.Len())
	}
	return d.launch("act_backward", d.gridFor(n, 256), 256, y, g, dx, n, relu, p)
}

// ActBackwardColSum is ActBackward followed by ColSum(db, dx) in one pass:
// dx = g masked by BiasAct's output y, db[c] = Σ_r dx[r,c]. dx may be g.
func ActBackwardColSum(dx, db, y, g *Tensor, relu bool, p float32) error {
	d, err := sameDev("ActBackwardColSum", dx, db, y, g)
	if err != nil {
		return err
	}
	if dx.Len() != y.Len() || g.Len() != y.Len() || dx.Cols != y.Cols || db.Len() != y.Cols {
		return shapeErr("ActBackwardColSum", "dx %dx%d, y %dx%d, g %dx%d, db %d", dx.Rows, dx.Cols, y.Rows, y.Cols, g.Rows, g.Cols, db.Len())
	}
	if err := db.Fill(0); err != nil {
		return err
	}
	gx, gy, chunk := colGrid(y)
	return d.launch3("act_backward_colsum", [3]int{gx, gy, 1}, [3]int{128, 1, 1}, y, g, dx, db, y.Rows, y.Cols, chunk, relu, p)
}

// colGrid is the launch grid of the column reductions: 128 columns and a
// chunk of 512 rows a block.
func colGrid(x *Tensor) (gx, gy, chunk int) {
	chunk = 512
	return (x.Cols + 127) / 128, (x.Rows + chunk - 1) / chunk, chunk
}

// ColSum computes dst[c] = Σ_r x[r,c] (the bias gradient).
func ColSum(dst, x *Tensor) error {
	d, err := sameDev("ColSum", dst, x)
	if err != nil {
		return err
	}
	if dst.Len() != x.Cols {
		return shapeErr("ColSum", "x %dx%d into %d", x.Rows, x.Cols, dst.Len())
	}
	if err := dst.Fill(0); err != nil {
		return err
	}
	gx, gy, chunk := colGrid(x)
	return d.launch3("col_sum", [3]int{gx, gy, 1}, [3]int{128, 1, 1}, x, dst, x.Rows, x.Cols, chunk)
}

// Labels are class labels on the device, -1 for rows outside the loss.
type Labels struct {
	buf   *buffer
	n     int
	count int
}

// NewLabels uploads labels; rows with a negative label do not count.
func NewLabels(d *Device, labels []int) (*Labels, error) {
	y := make([]int32, len(labels))
	c := 0
	for i, l := range labels {
		y[i] = int32(l)
		if l >= 0 {
			c++
		}
	}
	b, err := d.uploadInts(y)
	if err != nil {
		return nil, err
	}
	return &Labels{buf: b, n: len(labels), count: c}, nil
}

// SoftmaxNLL computes the mean negative log-likelihood of log_softmax(logits)
// over the labelled rows into loss (1x1) and its gradient into grad, in one
// fused pass.
func SoftmaxNLL(grad, loss, logits *Tensor, y *Labels) error {
	d, err := sameDev("SoftmaxNLL", grad, loss, logits)
	if err != nil {
		return err
	}
	if y.n != logits.Rows || grad.Len() != logits.Len() || loss.Len() != 1 {
		return shapeErr("SoftmaxNLL", "logits %dx%d, %d labels", logits.Rows, logits.Cols, y.n)
	}
	if err := loss.Fill(0); err != nil {
		return err
	}
	inv := float32(1) / float32(max(1, y.count))
	return d.launch("softmax_nll", d.gridFor(int64(logits.Rows)*32, 256), 256, logits, y.buf, grad, loss, logits.Rows, logits.Cols, inv)
}

// Adam is the Adam optimiser (Kingma and Ba) over device parameters, its
// moments kept on the device.
type Adam struct {
	LR, Beta1, Beta2, Eps float32
	step                  int
	m                     map[*Tensor][2]*Tensor // first and second moments
}

// NewAdam returns Adam with PyTorch's defaults for the betas and eps.
func NewAdam(lr float32) *Adam {
	return &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, m: map[*Tensor][2]*Tensor{}}
}

// Step updates each params[i] with grads[i] in place.
func (o *Adam) Step(params, grads []*Tensor) error {
	o.step++
	bc1 := 1 - pow32(o.Beta1, o.step)
	bc2 := 1 - pow32(o.Beta2, o.step)
	for i, p := range params {
		d := p.buf.dev
		st, ok := o.m[p]
		if !ok {
			m, err := d.Zeros(p.Rows, p.Cols)
			if err != nil {
				return err
			}
			v, err := d.Zeros(p.Rows, p.Cols)
			if err != nil {
				return err
			}
			st = [2]*Tensor{m, v}
			o.m[p] = st
		}
		n := int64(p.Len())
		if grads[i].Len() != p.Len() {
			return shapeErr("Adam.Step", "param %d: %d values, gradient %d", i, p.Len(), grads[i].Len())
		}
		if err := d.launch("adam", d.gridFor(n, 256), 256, p, grads[i], st[0], st[1], n, o.LR, o.Beta1, o.Beta2, o.Eps, bc1, bc2); err != nil {
			return err
		}
	}
	return nil
}

func pow32(b float32, n int) float32 {
	r := float64(1)
	for i := 0; i < n; i++ {
		r *= float64(b)
	}
	return float32(r)
}

// Axpby computes y = a·x + b·y.
func Axpby(y *Tensor, a float32, x *Tensor, b float32) error {
	d, err := sameDev("Axpby", y, x)
	if err != nil {
		return err
	}
	if y.Len() != x.Len() {
		return shapeErr("Axpby", "lengths %d and %d", y.Len(), x.Len())
	}
	n := int64(y.Len())
	return d.launch("axpby", d.gridFor(n, 256), 256, x, y, n, a, b)
}

// CopyCols copies width columns of src starting at soff into dst starting
// at doff, row by row (to split or join the halves of x·[W_l W_r]).
func CopyCols(dst *Tensor, doff int, src *Tensor, soff, width int) error {
	d, err := sameDev("CopyCols", dst, src)
	if err != nil {
		return err
	}
	if dst.Rows != src.Rows || soff+width > src.Cols || doff+width > dst.Cols {
		return shapeErr("CopyCols", "src %dx%d[%d:+%d], dst %dx%d[%d:]", src.Rows, src.Cols, soff, width, dst.Rows, dst.Cols, doff)
	}
	n := int64(src.Rows) * int64(width)
	return d.launch("copy_cols", d.gridFor(n, 256), 256, src, dst, src.Rows, width, src.Cols, soff, dst.Cols, doff)
}

// AggregateMax computes dst[v,c] = max over v's in-edges u of x[u,c] (0 for
// a node without in-edges) and arg[v*F+c] = the winning u (-1 if none), as
// graph.Graph.AggregateMax does, arg being an int32 tensor in disguise (use
// ArgHost to read it). Light rows are reduced one lane per feature; rows
// with more than 128 in-edges are split into edge tiles reduced in parallel
// and combined by 64-bit atomic max on packed (value, source) keys.
func AggregateMax(dst, arg *Tensor, g *Graph, x *Tensor) error {
	d, err := sameDev("AggregateMax", dst, arg, x)
	if err != nil {
		return err
	}
	f := x.Cols
	if x.Rows != g.nsrc || dst.Rows != g.n || dst.Cols != f || arg.Len() != dst.Len() {
		return shapeErr("AggregateMax", "x %dx%d, dst %dx%d, graph %d<-%d", x.Rows, x.Cols, dst.Rows, dst.Cols, g.n, g.nsrc)
	}
	// The packed keys of the heavy rows need 8 bytes per output element.
	keys, err := d.newBuffer(int64(dst.Len()) * 8)
	if err != nil {
		return err
	}
	defer keys.release()
	total := int64(dst.Len())
	if err := d.launch("agg_max_light", d.gridFor(total, 256), 256, g.indptr, g.idx, x, dst, arg, keys, g.n, f, g.maxTile); err != nil {
		return err
	}
	if g.nheavy == 0 {
		return nil
	}
	if err := d.launch("agg_max_heavy", g.ntiles, min(256, (f+31)/32*32), g.indptr, g.idx, x, keys, g.heavy, g.tiles, g.nheavy, f, g.maxTile); err != nil {
		return err
	}
	return d.launch("agg_max_finish", d.gridFor(int64(g.nheavy)*int64(f), 256), 256, g.heavy, g.nheavy, keys, dst, arg, f)
}

// ArgHost reads a tensor written as int32 by AggregateMax.
func ArgHost(arg *Tensor) ([]int, error) {
	raw, err := arg.Host()
	if err != nil {
		return nil, err
	}
	out := make([]int, len(raw))
	for i, v := range raw {
		out[i] = int(int32(math.Float32bits(v)))
	}
	return out, nil
}
