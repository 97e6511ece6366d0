package cuda

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// GAT holds what the fused GAT (v1) attention keeps between forward and
// backward: the output and one log-sum-exp per (node, head).
// GATForwardBF16 runs the same passes over bfloat16 features h (the
// kernels' _bf16 versions): Out16 holds the output instead of Out, and
// BackwardBF16 takes bfloat16 dOut and writes a bfloat16 dh; the
// per-node scores, their gradients and the log-sum-exp stay float32.
type GAT struct {
	Heads, Channels int
	Slope           float32
	Dropout         AttentionDropout
	Out             *Tensor     // N x H*C
	Out16           *BF16Tensor // N x H*C (bfloat16 kernels)
	LSE             *Tensor     // N x H
}

// bf16 reports whether a ran the bfloat16 kernels.
func (a *GAT) bf16() bool { return a.Out16 != nil }

// outPtr is the output the backward kernels read.
func (a *GAT) outPtr() uintptr {
	if a.Out16 != nil {
		return a.Out16.ptr
	}
	if a.Out == nil {
		return 0
	}
	return a.Out.ptr
}

// devView16 is h as a Tensor header, for the checks of sameDev and the
// shapes (its ptr is bfloat16 storage: never launched as float32).
func devView16(h *BF16Tensor) *Tensor {
	return &Tensor{buf: h.buf, ptr: h.ptr, Rows: h.Rows, Cols: h.Cols}
}

// maxGATChannels is the widest head the fused GAT kernels take (32 values
// per lane in the _w kernels).
const maxGATChannels = 1024

// gatSuffix names the fused GAT kernels for heads of c channels: 8
// values per lane up to 256 channels, 32 (the _w kernels) up to 1024.
func gatSuffix(c int) string {
	if c <= 256 {
		return ""
	}
	return "_w"
}

// GATForward computes the attention aggregation of a GAT layer (Veličković
// et al., PyG's GATConv without bias): out[v,k,:] = Σ_u α_vuk h[u,k,:] with
// α the softmax over v's in-edges of LeakyReLU(as[u,k] + ad[v,k]). h is
// NumSrc x H*C, as NumSrc x H and ad NumNodes x H (the per-node logits
// <att_src_k, h_u,k> and <att_dst_k, h_v,k>, see HeadDot). Each
// destination makes one pass over its in-edges with an online softmax and
// no per-edge tensor is written. C is at most 1024. drop is the dropout of
// the attention coefficients (zero: none).
func GATForward(g *Graph, h, as, ad *Tensor, heads int, slope float32, drop AttentionDropout) (*GAT, error) {
	return gatForward(g, h, as, ad, heads, slope, drop, false)
}

// GATForwardBF16 is GATForward over bfloat16 h: the _bf16 kernels read it
// in bfloat16, keep the online softmax and the weighted sum in float32
// and store the output in bfloat16 (Out16). as and ad stay float32.
func GATForwardBF16(g *Graph, h *BF16Tensor, as, ad *Tensor, heads int, slope float32, drop AttentionDropout) (*GAT, error) {
	return gatForward(g, devView16(h), as, ad, heads, slope, drop, true)
}

// gatForward is GATForward; with bf16, h is a devView16 of bfloat16
// storage.
func gatForward(g *Graph, h, as, ad *Tensor, heads int, slope float32, drop AttentionDropout, bf16 bool) (*GAT, error) {
	d, err := sameDev("GATForward", h, as, ad)
	if err != nil {
		return nil, err
	}
	if err := drop.check("GATForward"); err != nil {
		return nil, err
	}
	if heads < 1 || h.Cols%heads != 0 {
		return nil, shapeErr("GATForward", "width %d for %d heads", h.Cols, heads)
	}
	c := h.Cols / heads
	if c > maxGATChannels || h.Rows != g.nsrc || as.Rows != g.nsrc || as.Cols != heads || ad.Rows != g.n || ad.Cols != heads {
		return nil, shapeErr("GATForward", "h %dx%d, as %dx%d, ad %dx%d, graph %d<-%d, %d heads (at most %d channels each)",
			h.Rows, h.Cols, as.Rows, as.Cols, ad.Rows, ad.Cols, g.n, g.nsrc, heads, maxGATChannels)
	}
	out, out16, lse, err := attnForward(d, g, "gat_fwd"+gatSuffix(c)+bf16Suffix(bf16), heads, c, 32, bf16, 0, 0, func(out uintptr, lse *Tensor, n int, _ bool) []any {
		return []any{h.ptr, as, ad, out, lse, n, heads, c, slope, drop.P, drop.Seed}
	})
	if err != nil {
		return nil, err
	}
	return &GAT{Heads: heads, Channels: c, Slope: slope, Dropout: drop, Out: out, Out16: out16, LSE: lse}, nil
}

// Backward computes the gradients with respect to h, as and ad (into dh,
// das and dad, overwritten) from dout = dL/dOut: one pass over the
// in-edges for ad, one over the cached transposed CSR for h and as, both
// recomputing the attention from the stored log-sum-exp.
func (a *GAT) Backward(g *Graph, h, as, ad, dout, dh, das, dad *Tensor) error {
	if a.bf16() {
		return shapeErr("GAT.Backward", "float32 operands after a bfloat16 forward pass: use BackwardBF16")
	}
	return a.backward(g, h, as, ad, dout, dh, das, dad)
}

// BackwardBF16 is Backward after GATForwardBF16: h, dout and dh bfloat16,
// das and dad float32 (summed in float32 over the edges).
func (a *GAT) BackwardBF16(g *Graph, h *BF16Tensor, as, ad *Tensor, dout, dh *BF16Tensor, das, dad *Tensor) error {
	if !a.bf16() {
		return shapeErr("GAT.BackwardBF16", "bfloat16 operands after a float32 forward pass: use Backward")
	}
	return a.backward(g, devView16(h), as, ad, devView16(dout), devView16(dh), das, dad)
}

// backward is Backward; after GATForwardBF16, h, dout and dh are
// devView16s of bfloat16 storage.
func (a *GAT) backward(g *Graph, h, as, ad, dout, dh, das, dad *Tensor) error {
	d, err := sameDev("GAT.Backward", h, as, ad, dout, dh, das, dad)
	if err != nil {
		return err
	}
	hc := a.Heads * a.Channels
	if dout.Rows != g.n || dout.Cols != hc || dh.Rows != g.nsrc || dh.Cols != hc || das.Len() != g.nsrc*a.Heads || dad.Len() != g.n*a.Heads {
		return shapeErr("GAT.Backward", "dout %dx%d, dh %dx%d, das %d, dad %d", dout.Rows, dout.Cols, dh.Rows, dh.Cols, das.Len(), dad.Len())
	}
	dd, err := d.Empty(g.n, a.Heads)
	if err != nil {
		return err
	}
	defer dd.Free()
	sfx := gatSuffix(a.Channels) + bf16Suffix(a.bf16())
	launch := func(kernel string, n int, args []any) error {
		return d.launch(kernel+sfx, d.gridFor(int64(n)*int64(a.Heads)*32, 256), 256, args...)
	}
	// D per (row, head) goes to dd from the row pass only.
	dst := func(dd, dad uintptr, n int) []any {
		return []any{h.ptr, as, ad, a.outPtr(), a.LSE, dout.ptr, dd, dad, n, a.Heads, a.Channels, a.Slope, a.Dropout.P, a.Dropout.Seed}
	}
	pass := g.attnPass(false)
	if err := launch("gat_bwd_dst", g.n, pass.rowArgs(dst(dd.ptr, dad.ptr, g.n)...)); err != nil {
		return err
	}
	if pass.split {
		err := splitSum(pass, []sumOut{{a.Heads, dad.ptr, int64(a.Heads), false}}, func(parts []*Tensor) error {
			return launch("gat_bwd_dst", pass.hv.ntiles, pass.tileArgs(dst(0, parts[0].ptr, pass.hv.ntiles)...))
		})
		if err != nil {
			return err
		}
	}
	// The source pass draws dropout factors by CSR edge: it needs the
	// transpose's permutation then.
	var tperm *buffer
	if a.Dropout.P > 0 {
		if tperm, err = g.transposePerm(); err != nil {
			return err
		}
	}
	src := func(dh, das uintptr, n int) []any {
		return []any{h.ptr, as, ad, a.LSE, dd, dout.ptr, dh, das, n, a.Heads, a.Channels, a.Slope, ptrOf(tperm), a.Dropout.P, a.Dropout.Seed}
	}
	pass = g.attnPass(true)
	if err := launch("gat_bwd_src", g.nsrc, pass.rowArgs(src(dh.ptr, das.ptr, g.nsrc)...)); err != nil || !pass.split {
		return err
	}
	return splitSum(pass, []sumOut{{hc, dh.ptr, int64(hc), a.bf16()}, {a.Heads, das.ptr, int64(a.Heads), false}}, func(parts []*Tensor) error {
		return launch("gat_bwd_src", pass.hv.ntiles, pass.tileArgs(src(parts[0].ptr, parts[1].ptr, pass.hv.ntiles)...))
	})
}

// Free releases the saved tensors.
func (a *GAT) Free() {
	a.Out.Free()
	a.Out16.Free()
	a.LSE.Free()
}

// HeadDot computes y[r,k] = Σ_j x[r,k,j]·att[k,j] for x of rows x H*C and
// att of H*C values: GAT's per-node attention logits.
func HeadDot(y, x, att *Tensor, heads int) error {
	d, err := sameDev("HeadDot", y, x, att)
	if err != nil {
		return err
	}
	if heads < 1 || x.Cols%heads != 0 || att.Len() != x.Cols || y.Len() != x.Rows*heads {
		return shapeErr("HeadDot", "x %dx%d, att %d, y %d, %d heads", x.Rows, x.Cols, att.Len(), y.Len(), heads)
	}
	return d.launch("head_dot", d.gridFor(int64(x.Rows)*int64(heads)*32, 256), 256, x, att, y, x.Rows, heads, x.Cols/heads)
}

// HeadDotBackward computes HeadDot's gradients from g = dL/dy: dx (rows x
// H*C, may be nil) and datt (H*C values, may be nil).
func HeadDotBackward(dx, datt, g, x, att *Tensor, heads int) error {
	d, err := sameDev("HeadDotBackward", dx, datt, g, x, att)
	if err != nil {
		return err
	}
	c := x.Cols / heads
	if dx != nil {
		n := int64(x.Len())
		if err := d.launch("head_dot_dx", d.gridFor(n, 256), 256, g, att, dx, n, heads, c); err != nil {
			return err
		}
	}
	if datt == nil {
		return nil
	}
	if err := datt.Fill(0); err != nil {
		return err
	}
	const chunk = 512
	return d.launch3("head_dot_datt", [3]int{(x.Cols + 127) / 128, (x.Rows + chunk - 1) / chunk, 1}, [3]int{128, 1, 1},
		g, x, datt, x.Rows, heads, c, chunk)
}

// GATAttention runs the fused GAT attention for gnnlib/nn's GATAttention,
// with attention dropout p (0: none) drawn from seed. The backward function
// releases the saved log-sum-exp once it ran, so it may run once.
func (d *backend) GATAttention(g *graph.Graph, h, aSrc, aDst *tensor.Tensor, heads int, slope, p float32, seed uint64) (tensor.Storage, func(*tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error), error) {
	_, cols := matrixShape(h.Shape())
	var vs []*Tensor // nil: the bfloat16 kernels (fusedAttention reads the inputs)
	if heads < 1 || cols%heads != 0 || !d.halfAttention(cols/heads, cols/heads, h, aSrc, aDst) {
		var err error
		if vs, err = d.views(h, aSrc, aDst); err != nil {
			return nil, nil, err
		}
	}
	if heads < 1 || cols%heads != 0 || cols/heads > maxGATChannels {
		return nil, nil, fmt.Errorf("gnnlib/cuda: GATAttention with %d heads over width %d (the fused kernel takes at most %d channels per head): %w", heads, cols, maxGATChannels, tensor.ErrNotOnDevice)
	}
	dg, err := d.deviceGraph(g, false)
	if err != nil {
		return nil, nil, err
	}
	c := cols / heads
	return d.runAttention(heads, c, c, []*tensor.Tensor{h, aSrc, aDst}, vs, &gatOp{d: d, g: dg, heads: heads, slope: slope, drop: AttentionDropout{P: p, Seed: seed}})
}

// gatOp is GATAttention's kernels for fusedAttention: inputs h and the
// per-node scores of sources and destinations (never padded: the GAT
// kernels take every width up to 1024).
type gatOp struct {
	d     *backend
	g     *Graph
	heads int
	slope float32
	drop  AttentionDropout
	fw    *GAT
}

// scores views a per-node score input as NumNodes x heads.
func (k *gatOp) scores(t *Tensor) *Tensor {
	return &Tensor{buf: t.buf, ptr: t.ptr, Rows: t.Len() / k.heads, Cols: k.heads}
}

func (k *gatOp) forward(ins []*Tensor) (*Tensor, error) {
	var err error
	if k.fw, err = GATForward(k.g, ins[0], k.scores(ins[1]), k.scores(ins[2]), k.heads, k.slope, k.drop); err != nil {
		return nil, err
	}
	return k.fw.Out, nil
}

func (k *gatOp) backward(ins []*Tensor, out, dout *Tensor) ([]*Tensor, error) {
	k.fw.Out = out
	as, ad := k.scores(ins[1]), k.scores(ins[2])
	gs := make([]*Tensor, 3)
	for i, s := range [][2]int{{ins[0].Rows, ins[0].Cols}, {as.Rows, k.heads}, {ad.Rows, k.heads}} {
		var err error
		if gs[i], err = k.d.Empty(s[0], s[1]); err != nil {
			freeAll(gs)
			return nil, err
		}
	}
	if err := k.fw.Backward(k.g, ins[0], as, ad, dout, gs[0], gs[1], gs[2]); err != nil {
		freeAll(gs)
		return nil, err
	}
	return gs, nil
}

func (k *gatOp) feature(i int) bool { return i == 0 } // h; the scores are float32

func (k *gatOp) forward16(ins16 []*BF16Tensor, ins []*Tensor) (*BF16Tensor, error) {
	var err error
	if k.fw, err = GATForwardBF16(k.g, ins16[0], k.scores(ins[1]), k.scores(ins[2]), k.heads, k.slope, k.drop); err != nil {
		return nil, err
	}
	return k.fw.Out16, nil
}

func (k *gatOp) backward16(ins16 []*BF16Tensor, ins []*Tensor, out, dout *BF16Tensor) ([]tensor.Storage, error) {
	k.fw.Out16 = out
	as, ad := k.scores(ins[1]), k.scores(ins[2])
	dh, err := k.d.EmptyBF16(ins16[0].Rows, ins16[0].Cols)
	if err != nil {
		return nil, err
	}
	gs := make([]*Tensor, 2)
	for i, s := range [][2]int{{as.Rows, k.heads}, {ad.Rows, k.heads}} {
		if gs[i], err = k.d.Empty(s[0], s[1]); err != nil {
			dh.Free()
			freeAll(gs)
			return nil, err
		}
	}
	if err := k.fw.BackwardBF16(k.g, ins16[0], as, ad, dout, dh, gs[0], gs[1]); err != nil {
		dh.Free()
		freeAll(gs)
		return nil, err
	}
	return []tensor.Storage{dh, gs[0], gs[1]}, nil
}

func (k *gatOp) release() { k.fw.LSE.Free() }

// HeadDot returns GAT's per-node attention logits y[r,k] = Σ_j
// x[r,k,j]·att[k,j] for gnnlib/nn, with a function computing the
// gradients of x and att from y's.
func (d *backend) HeadDot(x, att *tensor.Tensor, heads int) (tensor.Storage, func(*tensor.Tensor) (dx, datt tensor.Storage, err error), error) {
	vs, err := d.views(x, att)
	if err != nil {
		return nil, nil, err
	}
	y, err := d.Empty(vs[0].Rows, heads)
	if err != nil {
		return nil, nil, err
	}
	if err := HeadDot(y, vs[0], vs[1], heads); err != nil {
		return nil, nil, err
	}
	// A bfloat16 x was widened into a float32 copy: free it now and widen
	// x again in the backward pass rather than hold both until then.
	_, xHalf := d.halfView(x)
	if xHalf {
		vs[0].Free()
	}
	backward := func(grad *tensor.Tensor) (tensor.Storage, tensor.Storage, error) {
		g, err := d.view(grad)
		if err != nil {
			return nil, nil, err
		}
		if _, half := d.halfView(grad); half {
			defer g.Free()
		}
		if xHalf {
			if vs[0], err = d.view(x); err != nil {
				return nil, nil, err
			}
			defer vs[0].Free()
		}
		dx, err := d.Empty(vs[0].Rows, vs[0].Cols)
		if err != nil {
			return nil, nil, err
		}
		datt, err := d.Empty(vs[1].Rows, vs[1].Cols)
		if err != nil {
			return nil, nil, err
		}
		return dx, datt, HeadDotBackward(dx, datt, g, vs[0], vs[1], heads)
	}
	return y, backward, nil
}
