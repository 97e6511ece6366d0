package cuda

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// GAT holds what the fused GAT (v1) attention keeps between forward and
// backward: the output and one log-sum-exp per (node, head).
type GAT struct {
	Heads, Channels int
	Slope           float32
	Dropout         AttentionDropout
	Out             *Tensor // N x H*C
	LSE             *Tensor // N x H
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
	out, _, lse, err := attnForward(d, g, "gat_fwd"+gatSuffix(c), heads, c, 32, false, 0, 0, func(out uintptr, lse *Tensor, n int, _ bool) []any {
		return []any{h, as, ad, out, lse, n, heads, c, slope, drop.P, drop.Seed}
	})
	if err != nil {
		return nil, err
	}
	return &GAT{Heads: heads, Channels: c, Slope: slope, Dropout: drop, Out: out, LSE: lse}, nil
}

// Backward computes the gradients with respect to h, as and ad (into dh,
// das and dad, overwritten) from dout = dL/dOut: one pass over the
// in-edges for ad, one over the cached transposed CSR for h and as, both
// recomputing the attention from the stored log-sum-exp.
func (a *GAT) Backward(g *Graph, h, as, ad, dout, dh, das, dad *Tensor) error {
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
	launch := func(kernel string, n int, args []any) error {
		return d.launch(kernel+gatSuffix(a.Channels), d.gridFor(int64(n)*int64(a.Heads)*32, 256), 256, args...)
	}
	// D per (row, head) goes to dd from the row pass only.
	dst := func(dd, dad uintptr, n int) []any {
		return []any{h, as, ad, a.Out, a.LSE, dout, dd, dad, n, a.Heads, a.Channels, a.Slope, a.Dropout.P, a.Dropout.Seed}
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
		return []any{h, as, ad, a.LSE, dd, dout, dh, das, n, a.Heads, a.Channels, a.Slope, ptrOf(tperm), a.Dropout.P, a.Dropout.Seed}
	}
	pass = g.attnPass(true)
	if err := launch("gat_bwd_src", g.nsrc, pass.rowArgs(src(dh.ptr, das.ptr, g.nsrc)...)); err != nil || !pass.split {
		return err
	}
	return splitSum(pass, []sumOut{{hc, dh.ptr, int64(hc), false}, {a.Heads, das.ptr, int64(a.Heads), false}}, func(parts []*Tensor) error {
		return launch("gat_bwd_src", pass.hv.ntiles, pass.tileArgs(src(parts[0].ptr, parts[1].ptr, pass.hv.ntiles)...))
	})
}

// Free releases the saved tensors.
func (a *GAT) Free() {
	a.Out.Free()
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
	vs, err := d.views(h, aSrc, aDst)
	if err != nil {
		return nil, nil, err
	}
	if heads < 1 || vs[0].Cols%heads != 0 || vs[0].Cols/heads > maxGATChannels {
		return nil, nil, fmt.Errorf("gnnlib/cuda: GATAttention with %d heads over width %d (the fused kernel takes at most %d channels per head): %w", heads, vs[0].Cols, maxGATChannels, tensor.ErrNotOnDevice)
	}
	dg, err := d.deviceGraph(g, false)
	if err != nil {
		return nil, nil, err
	}
	c := vs[0].Cols / heads
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
