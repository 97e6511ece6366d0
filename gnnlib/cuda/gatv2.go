package cuda

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// GATv2Attention runs the fused GATv2 attention for gnnlib/nn: hs (the
// messages, x·W_l) and hd (the targets, x·W_r) are read in place, and the
// backward pass writes their gradients directly. p is the attention
// dropout (0: none), its mask drawn from seed. Heads whose width is not a
// multiple of 4 (7 or 47 classes) run padded with zero channels to the
// next multiple (padHeads), which changes no score, output or gradient.
func (d *backend) GATv2Attention(g *graph.Graph, hs, hd, att *tensor.Tensor, heads int, slope, p float32, seed uint64) (tensor.Storage, func(*tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error), error) {
	vs, c, cp, dg, err := d.attentionInputs("GATv2Attention", g, heads, hs, hd, att)
	if err != nil {
		return nil, nil, err
	}
	return d.runAttention(heads, c, cp, []*tensor.Tensor{hs, hd, att}, vs, &gatv2Op{d: d, g: dg, heads: heads, cp: cp, slope: slope, drop: AttentionDropout{P: p, Seed: seed}})
}

// GATv2AttentionOut is GATv2Attention for gnnlib/nn's GATv2OutOps: the
// caller owns the output and may free it once the call returns (a padded
// op frees its kernels' output at once), and hands the backward function
// the output again, or a copy rebuilt from what it kept (UnbiasAct). The
// backward kernels read the output only through D = dOut·out per node
// and head, so the copy needs to be right only where dOut is not zero.
func (d *backend) GATv2AttentionOut(g *graph.Graph, hs, hd, att *tensor.Tensor, heads int, slope, p float32, seed uint64) (tensor.Storage, func(grad, out *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error), error) {
	vs, c, cp, dg, err := d.attentionInputs("GATv2Attention", g, heads, hs, hd, att)
	if err != nil {
		return nil, nil, err
	}
	k := &gatv2Op{d: d, g: dg, heads: heads, cp: cp, slope: slope, drop: AttentionDropout{P: p, Seed: seed}}
	op, out, err := d.startAttention(heads, c, cp, []*tensor.Tensor{hs, hd, att}, vs, k)
	if err != nil {
		return nil, nil, err
	}
	if op.padded() {
		op.out.Free() // the backward pass pads the caller's copy
		op.out, k.fw.Out = nil, nil
	}
	rows, _ := matrixShape(hs.Shape())
	return out, func(grad, o *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error) {
		if op.done {
			return op.backward(grad) // errBackwardTwice
		}
		if o == nil {
			return nil, nil, nil, fmt.Errorf("gnnlib/cuda: GATv2AttentionOut's backward pass without the output")
		}
		if op.bf16() {
			// The bfloat16 kernels read the output in bfloat16: the
			// caller's, or a rounded copy of a rebuilt float32 one.
			h, release, err := d.halfOperand(o)
			if err != nil {
				return nil, nil, nil, err
			}
			defer release()
			if h.Len() != rows*heads*c {
				return nil, nil, nil, shapeErr("GATv2AttentionOut backward", "output %dx%d, want %dx%d", h.Rows, h.Cols, rows, heads*c)
			}
			op.out16 = &BF16Tensor{buf: h.buf, ptr: h.ptr, Rows: rows, Cols: heads * c}
			return op.backward(grad)
		}
		v, err := d.view(o)
		if err != nil {
			return nil, nil, nil, err
		}
		if _, half := d.halfView(o); half {
			defer v.Free()
		}
		if v.Len() != rows*heads*c {
			return nil, nil, nil, shapeErr("GATv2AttentionOut backward", "output %dx%d, want %dx%d", v.Rows, v.Cols, rows, heads*c)
		}
		if op.padded() {
			if v, err = d.padHeads(v, heads, c, cp); err != nil {
				return nil, nil, nil, err
			}
			defer v.Free()
		}
		op.out = &Tensor{buf: v.buf, ptr: v.ptr, Rows: rows, Cols: heads * cp}
		return op.backward(grad)
	}, nil
}

// UnbiasAct returns x rebuilt from y = dropout(relu(x + b)) for gnnlib/nn's
// GATv2OutOps: written from float32 y in one pass (unbias_act_to,
// tune.UnbiasActOnePass), else a copy of y that the unbias_act kernel
// turns back (UnbiasAct). With BF16Attention, a y stored in bfloat16 (Autocast)
// gives a bfloat16 x (unbias_act_bf16), which the bfloat16 attention
// kernels read as it is.
func (d *backend) UnbiasAct(y, b *tensor.Tensor, relu bool, p float32) (tensor.Storage, error) {
	bv, err := d.view(b)
	if err != nil {
		return nil, err
	}
	if _, half := d.halfView(b); half {
		defer bv.Free()
	}
	if h, ok := d.halfView(y); ok && BF16Attention {
		return d.unbiasActHalf(h, bv, relu, p)
	}
	if d.unbiasOnePass(y) {
		return d.unbiasActOnePass(y, bv, relu, p) // unbias.go
	}
	s, err := d.Copy(y) // float32, also of 16-bit storage
	if err != nil {
		return nil, err
	}
	out := s.(*Tensor)
	rows, cols := matrixShape(y.Shape())
	out.Rows, out.Cols = rows, cols
	if out.Len() == 0 {
		return out, nil
	}
	if err := UnbiasAct(out, bv, relu, p); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// unbiasActHalf is UnbiasAct of bfloat16 y: a bfloat16 copy turned back
// in place by unbias_act_bf16.
func (d *backend) unbiasActHalf(y *BF16Tensor, b *Tensor, relu bool, p float32) (tensor.Storage, error) {
	if b != nil && b.Len() != y.Cols {
		return nil, shapeErr("UnbiasAct", "y %dx%d, bias %d", y.Rows, y.Cols, b.Len())
	}
	out, err := d.EmptyBF16(y.Rows, y.Cols)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	n := int64(out.Len())
	if tune.BF16Vec8 && y.Cols%8 == 0 && y.ptr%16 == 0 && out.ptr%16 == 0 {
		// One pass from y, 16 bytes a thread (half.cu).
		err = d.launch("unbias_act_bf16_v8", d.gridFor(n/8, 256), 256, y.ptr, b, out.ptr, n, out.Cols, relu, p)
	} else {
		err = d.do(func(drv driver) error { return drv.dtod(out.ptr, y.ptr, y.Bytes()) })
		if err == nil {
			err = d.launch("unbias_act_bf16", d.gridFor(n, 256), 256, out.ptr, b, n, out.Cols, relu, p)
		}
	}
	if err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// gatv2Op is GATv2Attention's kernels for fusedAttention: inputs x_l, x_r
// and att.
type gatv2Op struct {
	d         *backend
	g         *Graph
	heads, cp int
	slope     float32
	drop      AttentionDropout
	fw        *GATv2
}

func (k *gatv2Op) forward(ins []*Tensor) (*Tensor, error) {
	a := &Tensor{buf: ins[2].buf, ptr: ins[2].ptr, Rows: 1, Cols: k.heads * k.cp}
	var err error
	k.fw, err = GATv2ForwardLR(k.g, ins[0], ins[1], a, k.heads, k.cp, k.slope, k.drop)
	if err != nil {
		return nil, err
	}
	return k.fw.Out, nil
}

func (k *gatv2Op) backward(ins []*Tensor, out, dout *Tensor) ([]*Tensor, error) {
	k.fw.Out = out
	d, hcp := k.d, k.heads*k.cp
	a := &Tensor{buf: ins[2].buf, ptr: ins[2].ptr, Rows: 1, Cols: hcp}
	gs := make([]*Tensor, 3) // dx_l, dx_r, datt
	fail := func(err error) ([]*Tensor, error) {
		freeAll(gs)
		return nil, err
	}
	var err error
	// The edge-coefficient backward runs its source pass first.
	first := k.fw.SourceFirst()
	if first {
		if gs[0], err = d.Empty(k.g.n, hcp); err != nil {
			return fail(err)
		}
		if err := k.fw.BackwardSrc(k.g, ins[0], ins[1], a, dout, gs[0]); err != nil {
			return fail(err)
		}
	}
	if gs[1], err = d.Empty(k.g.n, hcp); err != nil {
		return fail(err)
	}
	if gs[2], err = d.Empty(1, hcp); err != nil {
		return fail(err)
	}
	if err := k.fw.BackwardDst(k.g, ins[0], ins[1], a, dout, gs[1], gs[2]); err != nil {
		return fail(err)
	}
	if !first {
		if gs[0], err = d.Empty(k.g.n, hcp); err != nil {
			return fail(err)
		}
		if err := k.fw.BackwardSrc(k.g, ins[0], ins[1], a, dout, gs[0]); err != nil {
			return fail(err)
		}
	}
	return gs, nil
}

func (k *gatv2Op) feature(i int) bool { return i < 2 } // x_l, x_r; att is float32

func (k *gatv2Op) forward16(ins16 []*BF16Tensor, ins []*Tensor) (*BF16Tensor, error) {
	a := &Tensor{buf: ins[2].buf, ptr: ins[2].ptr, Rows: 1, Cols: k.heads * k.cp}
	var err error
	k.fw, err = GATv2ForwardBF16(k.g, ins16[0], ins16[1], a, k.heads, k.cp, k.slope, k.drop)
	if err != nil {
		return nil, err
	}
	return k.fw.Out16, nil
}

func (k *gatv2Op) backward16(ins16 []*BF16Tensor, ins []*Tensor, out, dout *BF16Tensor) ([]tensor.Storage, error) {
	k.fw.Out16 = out
	d, hcp := k.d, k.heads*k.cp
	a := &Tensor{buf: ins[2].buf, ptr: ins[2].ptr, Rows: 1, Cols: hcp}
	var dxl, dxr *BF16Tensor
	var datt *Tensor
	fail := func(err error) ([]tensor.Storage, error) {
		dxl.Free()
		dxr.Free()
		datt.Free()
		return nil, err
	}
	var err error
	first := k.fw.SourceFirst()
	if first {
		if dxl, err = d.EmptyBF16(k.g.n, hcp); err != nil {
			return fail(err)
		}
		if err := k.fw.BackwardSrcBF16(k.g, ins16[0], ins16[1], a, dout, dxl); err != nil {
			return fail(err)
		}
	}
	if dxr, err = d.EmptyBF16(k.g.n, hcp); err != nil {
		return fail(err)
	}
	if datt, err = d.Empty(1, hcp); err != nil {
		return fail(err)
	}
	if err := k.fw.BackwardDstBF16(k.g, ins16[0], ins16[1], a, dout, dxr, datt); err != nil {
		return fail(err)
	}
	if !first {
		if dxl, err = d.EmptyBF16(k.g.n, hcp); err != nil {
			return fail(err)
		}
		if err := k.fw.BackwardSrcBF16(k.g, ins16[0], ins16[1], a, dout, dxl); err != nil {
			return fail(err)
		}
	}
	return []tensor.Storage{dxl, dxr, datt}, nil
}

func (k *gatv2Op) release() {
	k.fw.LSE.Free()
	if k.fw.d != nil {
		k.fw.d.Free()
	}
	k.fw.freeEdges()
	k.fw.freeEdgeCoef()
}

// padHeads returns x (rows x heads·c) with each head widened to cp
// channels by zero columns (rows x heads·cp): as a (rows·heads) x c
// matrix, x's columns copied into a zeroed (rows·heads) x cp one.
func (d *backend) padHeads(x *Tensor, heads, c, cp int) (*Tensor, error) {
	rows := x.Len() / (heads * c)
	out, err := d.Zeros(rows, heads*cp)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	src := &Tensor{buf: x.buf, ptr: x.ptr, Rows: rows * heads, Cols: c}
	dst := &Tensor{buf: out.buf, ptr: out.ptr, Rows: rows * heads, Cols: cp}
	if err := CopyCols(dst, 0, src, 0, c); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// unpadHeads is padHeads' inverse: the first c of each head's cp columns.
func (d *backend) unpadHeads(x *Tensor, heads, c, cp int) (*Tensor, error) {
	rows := x.Len() / (heads * cp)
	out, err := d.Empty(rows, heads*c)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	src := &Tensor{buf: x.buf, ptr: x.ptr, Rows: rows * heads, Cols: cp}
	dst := &Tensor{buf: out.buf, ptr: out.ptr, Rows: rows * heads, Cols: c}
	if err := CopyCols(dst, 0, src, 0, c); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// gatv2Kernel is the fused GATv2 kernels' mapping for heads of C channels:
// groups of G lanes holding VPL float4s each, so 4·G·VPL channels, of
// which a masked kernel uses the first C.
type gatv2Kernel struct {
	g, vpl int
	mask   bool
}

// width is the number of channels a group holds in registers, C rounded
// up for a masked kernel; the saved sign bits take width/8 bytes per edge
// and head.
func (k gatv2Kernel) width() int { return 4 * k.g * k.vpl }

// wide reports whether the mapping has bfloat16 kernels of the wide
// layout (BF16WideLoads): exact, with an even number of float4s a lane.
func (k gatv2Kernel) wide() bool { return !k.mask && k.vpl%2 == 0 }

// suffix is the kernels' name suffix: _G_VPL, or _m_G_VPL masked.
func (k gatv2Kernel) suffix() string {
	if k.mask {
		return fmt.Sprintf("_m_%d_%d", k.g, k.vpl)
	}
	return fmt.Sprintf("_%d_%d", k.g, k.vpl)
}

// gatv2Groups are the group shapes instantiated in gatv2.cu, narrowest
// first; (32, 3) exists only masked.
var gatv2Groups = []gatv2Kernel{{2, 1, false}, {4, 1, false}, {8, 1, false}, {16, 1, false}, {32, 1, false}, {32, 2, false}, {32, 3, true}, {32, 4, false}, {32, 8, false}}

// maxGATv2Channels is the widest head the fused GATv2 kernels take.
const maxGATv2Channels = 1024

// maxMaskedGATv2Channels is the widest head a masked GATv2 kernel takes.
// The masked kernels of the (32, 8) group, between 512 and 1024
// channels, gave attention-vector gradients 0.3 % off with attention
// dropout on the H200 (TestGATv2 at 700 channels), so those widths are not
// fused at their own width: GATv2Attention pads them to 1024.
const maxMaskedGATv2Channels = 512

// fusedGATv2Width is the width GATv2Attention runs heads of c channels at:
// the next multiple of 4 (the float4 loads), or 1024 above
// maxMaskedGATv2Channels. The padding channels are zero and change no
// score, output or gradient.
func fusedGATv2Width(c int) int {
	cp := (c + 3) / 4 * 4
	if cp > maxMaskedGATv2Channels && cp < maxGATv2Channels {
		cp = maxGATv2Channels
	}
	return cp
}

// gatShape returns the fused GATv2 kernels' mapping for heads of c
// channels: the exact kernels for 8, 16, ..., 1024 and the masked ones of
// the narrowest group that holds c for the other multiples of 4 up to 1024
// (their float4 loads need c a multiple of 4). ok is false for the other
// widths, which gnnlib/nn composes from other device ops.
func gatShape(c int) (k gatv2Kernel, ok bool) {
	if c < 4 || c%4 != 0 || c > maxGATv2Channels || (c > maxMaskedGATv2Channels && c != maxGATv2Channels) {
		return gatv2Kernel{}, false
	}
	for _, k := range gatv2Groups {
		if k.width() == c {
			return k, true
		}
		if k.width() > c {
			k.mask = true
			return k, true
		}
	}
	return gatv2Kernel{}, false
}

// GATv2 holds what the fused GATv2 attention keeps between forward and
// backward: the output and one log-sum-exp per (node, head) — no per-edge
// tensor. Between its two backward passes it holds, in the default
// saved-edge mode, each edge's attention, score gradient and sign bits.
//
// GATv2ForwardBF16 runs the same passes over bfloat16 features (the
// kernels' _bf16 versions): Out16 holds the output instead of Out, and
// its backward pass takes bfloat16 dOut and writes bfloat16 gradients
// (BackwardDstBF16, BackwardSrcBF16). The softmax statistics (LSE, D),
// the sums over edges, the saved edges, att and its gradient stay
// float32; each bfloat16 row is rounded once, when it is stored.
type GATv2 struct {
	Heads, Channels int
	Slope           float32
	Out             *Tensor     // N x H*C (float32 kernels)
	Out16           *BF16Tensor // N x H*C (bfloat16 kernels)
	LSE             *Tensor     // N x H
	// OutAct, when its Bias is set, says that Out (or Out16) holds not
	// the output but an activation over it (OutAct's doc): the backward
	// passes, which read the output for each row's dOut·out only,
	// rebuild its values from it as they read it. Set it before the
	// backward pass.
	OutAct     OutAct
	Dropout    AttentionDropout
	d          *Tensor // N x H, dOut·Out (recomputing backward)
	eas, esign *Tensor // per edge and head: (alpha, ds) and C sign bits (saved-edge backward)
	saved      bool    // the last BackwardDst saved the edges
	wide       bool    // BF16WideLoads when the forward pass ran (the sign bits' layout)
	// The edge-coefficient backward (tune.GATv2EdgeCoef): per edge and
	// head the forward's score es and sign bits esgn, and att's gradient
	// from the source pass, dattSrc, which the destination pass adds to.
	// The source pass overwrites each score in es with its gradient, which
	// the destination pass reads (4 bytes an edge and head less than a
	// buffer of its own: 10 MB of an arxiv-sized layer at its backward's
	// peak, 0.5 GB of a products-sized one); spent is then set, and a
	// later backward pass over the same forward runs the other passes.
	es, esgn, dattSrc *Tensor
	spent             bool // an edge-coefficient source pass overwrote es (SourceFirst is false since)
	srcDone           bool // the edge-coefficient source pass ran; its destination pass comes next
	bal               bool // the forward pass stored the sign bits as ballot words (the _bal kernels)
	pendingSrc        bool // the recomputing or saved-edge BackwardDst ran; its BackwardSrc comes next
}

// OutAct describes the activation y = dropout(relu(out + Bias)) (ReLU
// when ReLU is set, dropout with probability P) that a GATv2's Out holds
// in place of its output when Bias is set: BiasAct(y, out, Bias, ReLU, P,
// seed)'s result, which a model keeps anyway. The backward passes then
// take the output's values as UnbiasAct(y, Bias, ReLU, P) would rebuild
// them: y·(1 − P) − Bias where y is not zero and 0 where it is (ReLU or
// P set), y − Bias otherwise. Its caller's dOut must be zero wherever y
// is (the activation's gradient passed back through it), which makes the
// zeros exact; no rebuilt copy of the output is stored. Bias is float32,
// one value a channel (H·C).
type OutAct struct {
	Bias *Tensor
	ReLU bool
	P    float32
}

// outArgs are the backward kernels' last three arguments before the att
// gradient's reduction: OutAct's bias (0: Out is the output), dropout
// probability and ReLU flag.
func (a *GATv2) outArgs() []any {
	if a.OutAct.Bias == nil {
		return []any{uintptr(0), float32(0), false}
	}
	return []any{a.OutAct.Bias.ptr, a.OutAct.P, a.OutAct.ReLU}
}

// bf16 reports whether a ran the bfloat16 kernels.
func (a *GATv2) bf16() bool { return a.Out16 != nil }

// outPtr is the output the backward kernels read.
func (a *GATv2) outPtr() uintptr {
	if a.Out16 != nil {
		return a.Out16.ptr
	}
	if a.Out == nil {
		return 0
	}
	return a.Out.ptr
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

// matOf16 is matOf for bfloat16 storage (the stride in values, as the
// _bf16 kernels take it).
func matOf16(t *BF16Tensor) mat { return mat{t.ptr, int64(t.Cols)} }

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
	return gatv2Forward(g, xl, xr, att, heads, channels, slope, drop, false)
}

// GATv2ForwardLR is GATv2Forward with x_l = x·W_l and x_r = x·W_r given
// as two N x HC tensors.
func GATv2ForwardLR(g *Graph, xl, xr, att *Tensor, heads, channels int, slope float32, drop AttentionDropout) (*GATv2, error) {
	hc := heads * channels
	if xl.Rows != g.n || xr.Rows != g.n || xl.Cols != hc || xr.Cols != hc {
		return nil, shapeErr("GATv2ForwardLR", "xl %dx%d, xr %dx%d, graph %d nodes, heads %d x %d", xl.Rows, xl.Cols, xr.Rows, xr.Cols, g.n, heads, channels)
	}
	return gatv2Forward(g, matOf(xl), matOf(xr), att, heads, channels, slope, drop, false)
}

// GATv2ForwardBF16 is GATv2ForwardLR over bfloat16 x_l and x_r (N x HC
// each): the _bf16 kernels read them 8 bytes (4 channels) a lane, keep
// the online softmax and the weighted sum in float32 and store the output
// in bfloat16 (Out16). att stays float32.
func GATv2ForwardBF16(g *Graph, xl, xr *BF16Tensor, att *Tensor, heads, channels int, slope float32, drop AttentionDropout) (*GATv2, error) {
	hc := heads * channels
	if xl.Rows != g.n || xr.Rows != g.n || xl.Cols != hc || xr.Cols != hc {
		return nil, shapeErr("GATv2ForwardBF16", "xl %dx%d, xr %dx%d, graph %d nodes, heads %d x %d", xl.Rows, xl.Cols, xr.Rows, xr.Cols, g.n, heads, channels)
	}
	return gatv2Forward(g, matOf16(xl), matOf16(xr), att, heads, channels, slope, drop, true)
}

func gatv2Forward(g *Graph, xl, xr mat, att *Tensor, heads, channels int, slope float32, drop AttentionDropout, bf16 bool) (*GATv2, error) {
	d := att.buf.dev
	if err := drop.check("GATv2Forward"); err != nil {
		return nil, err
	}
	hc := heads * channels
	k, ok := gatShape(channels)
	if !ok {
		return nil, shapeErr("GATv2Forward", "channels per head %d; supported multiples of 4 up to %d", channels, maxGATv2Channels)
	}
	if att.Len() != hc || !g.IsSquare() {
		return nil, shapeErr("GATv2Forward", "att %d, graph %d<-%d nodes, heads %d x %d", att.Len(), g.n, g.nsrc, heads, channels)
	}
	wide := BF16WideLoads
	a := &GATv2{Heads: heads, Channels: channels, Slope: slope, Dropout: drop, wide: wide}
	kernel := "gatv2_fwd"
	var save []any
	if a.edgeCoef(g, k, bf16) {
		eh := g.edges * heads
		var err error
		if a.es, err = d.Empty(eh, 1); err == nil {
			a.esgn, err = d.Empty((eh*(k.width()/8)+3)/4, 1)
		}
		if err != nil {
			a.freeEdgeCoef()
			return nil, err
		}
		kernel, save = "gatv2_fwde", []any{a.es, a.esgn}
	}
	var err error
	variant := edgeVariant(k, save != nil, false)
	a.bal = strings.HasPrefix(variant, "_bal")
	a.Out, a.Out16, a.LSE, err = attnForward(d, g, kernel+attnSuffix(k, bf16, wide)+variant, heads, channels, k.g, bf16, 0, 0, func(out uintptr, lse *Tensor, n int, _ bool) []any {
		args := append([]any{xl.ptr, xl.ld, xr.ptr, xr.ld, att, out, lse}, save...)
		return append(args, n, heads, slope, drop.P, drop.Seed, channels, tune.AttnPrefetch)
	})
	if err != nil {
		a.freeEdgeCoef()
		return nil, err
	}
	return a, nil
}

// edgeCoef reports whether a forward pass of a over g with the mapping k
// saves what the edge-coefficient backward needs: with
// tune.GATv2EdgeCoef, or with tune.GATv2EdgeAuto in GATv2Auto mode, in
// either precision, where gatv2.cu has its kernels and its per-edge
// values take at most edgeCoefCap.
func (a *GATv2) edgeCoef(g *Graph, k gatv2Kernel, bf16 bool) bool {
	want := tune.GATv2EdgeCoef || (tune.GATv2EdgeAuto && GATv2BackwardMode == GATv2Auto)
	return want && hasEdgeCoef(k, bf16, a.wide) && edgeCoefBytes(g.edges, a.Heads, k) <= edgeCoefCap(g.dev)
}

// edgeCoefCap is the most bytes of per-edge values the edge-coefficient
// backward keeps on d: edgeCoefLimit, and on a GPU of under 32 GiB a
// quarter of its memory, so that the 4.5 GB of a products-sized layer
// (19.7 GiB in all against the recomputing backward's 14.5, measured when
// the score gradients took another 0.5 GB) go only to a GPU that holds
// them beside the rest.
func edgeCoefCap(d *Device) int64 {
	if d == nil || d.memTotal == 0 {
		return edgeCoefLimit
	}
	return min(edgeCoefLimit, d.memTotal/4)
}

// hasEdgeCoef reports whether gatv2.cu has the edge-coefficient kernels
// for the mapping k in the given precision and bfloat16 layout: the
// exact widths 64, 128, 256 and 512, float32 and bfloat16 in the 8-byte
// layout; in the wide layout (BF16WideLoads), 256 channels with a
// ballot variant of tune.GATv2EdgeVariant ("bal", "balcp": the _bf16w_bal
// kernels).
func hasEdgeCoef(k gatv2Kernel, bf16, wide bool) bool {
	if k.mask {
		return false
	}
	if bf16 && wide && k.wide() {
		return strings.HasPrefix(edgeVariant(k, true, false), "_bal")
	}
	switch k.width() {
	case 64, 128, 256, 512:
		return true
	}
	return false
}

// edgeCoefLimit is the most bytes the edge-coefficient backward keeps
// per edge (edgeCoefBytes); larger graphs run the other passes. A
// products-sized layer (126M edges, 1x256) keeps 4.5 GB.
const edgeCoefLimit = 8 << 30

// edgeCoefBytes is what the edge-coefficient backward keeps for a graph
// of e edges: per edge and head the score (then its gradient) and the
// sign bits, 4 + width/8 bytes.
func edgeCoefBytes(e, heads int, k gatv2Kernel) int64 {
	return int64(e) * int64(heads) * int64(4+k.width()/8)
}

// edgeVariants maps each tune.GATv2EdgeVariant value to the name
// suffixes of its edge-coefficient forward and source passes at 1x256
// (gatv2.cu's variants, and gatv2_sm80.cu's _balcp source pass); the
// forward pass's sign bits are ballot words where its suffix starts with
// _bal.
var edgeVariants = map[string]struct{ fwd, src string }{
	"lb3":   {"_lb3", "_lb3"},
	"e1":    {"_lb3", "_e1"},
	"bal":   {"_bal", "_bal"},
	"balcp": {"_bal", "_balcp"},
}

// edgeVariant is the name suffix of the edge-coefficient forward (src
// false) or source pass's variant (tune.GATv2EdgeVariant) where gatv2.cu
// has it (1x256), or "".
func edgeVariant(k gatv2Kernel, edge, src bool) string {
	v, ok := edgeVariants[tune.GATv2EdgeVariant]
	switch {
	case !ok || !edge || k.mask || k.g != 32 || k.vpl != 2:
		return ""
	case src:
		return v.src
	}
	return v.fwd
}

// srcVariant is the edge-coefficient source pass's name suffix: when
// the forward pass stored the ballot sign words (a.bal), whatever
// tune.GATv2EdgeVariant says now, the ballot variant it names or _bal;
// otherwise edgeVariant's lb3 or e1, or "".
func (a *GATv2) srcVariant(k gatv2Kernel) string {
	v := edgeVariant(k, true, true)
	isBal := strings.HasPrefix(v, "_bal")
	switch {
	case a.bal && isBal:
		return v
	case a.bal:
		return "_bal"
	case isBal:
		return ""
	}
	return v
}

// SourceFirst reports whether the forward pass saved what the
// edge-coefficient backward needs (tune.GATv2EdgeCoef, or
// tune.GATv2EdgeAuto where the backward would otherwise recompute; exact
// head widths) and no edge-coefficient backward has used it yet: then
// BackwardSrc runs first, computing each edge's score gradient once (in
// place of its score), and BackwardDst after it sums stored values.
// Called in the other order, or once the scores are spent, the passes
// run as without it, BackwardDst first.
func (a *GATv2) SourceFirst() bool { return a.es != nil && !a.spent }

// Backward computes the gradients of the loss with respect to xlr (into
// dxlr, N x 2HC) and att (into datt, zeroed here) given dout = dL/dOut: a
// pass over the in-edges for the target half and att (BackwardDst), then
// one over the cached transposed CSR for the message half (BackwardSrc).
func (a *GATv2) Backward(g *Graph, xlr, att, dout, dxlr, datt *Tensor) error {
	hc := a.Heads * a.Channels
	if xlr.Rows != g.n || xlr.Cols != 2*hc || dxlr.Rows != g.n || dxlr.Cols != 2*hc {
		return shapeErr("GATv2.Backward", "xlr %dx%d, dxlr %dx%d, want %dx%d", xlr.Rows, xlr.Cols, dxlr.Rows, dxlr.Cols, g.n, 2*hc)
	}
	if err := a.checkDout("GATv2.Backward", g, dout.Rows, dout.Cols, false); err != nil {
		return err
	}
	xl, xr := halves(xlr, hc)
	dxl, dxr := halves(dxlr, hc)
	if a.SourceFirst() {
		if err := a.backwardSrc(g, xl, xr, att, dout.ptr, dxl); err != nil {
			return err
		}
		return a.backwardDst(g, xl, xr, att, dout.ptr, dxr, datt)
	}
	if err := a.backwardDst(g, xl, xr, att, dout.ptr, dxr, datt); err != nil {
		return err
	}
	return a.backwardSrc(g, xl, xr, att, dout.ptr, dxl)
}

// checkDout checks dOut's shape and that the backward pass's precision
// (bf16) is the forward's.
func (a *GATv2) checkDout(op string, g *Graph, rows, cols int, bf16 bool) error {
	if a.bf16() != bf16 {
		return shapeErr(op, "bfloat16 operands %t after a forward pass with bfloat16 %t", bf16, a.bf16())
	}
	if rows != g.n || cols != a.Heads*a.Channels {
		return shapeErr(op, "dout %dx%d, want %dx%d", rows, cols, g.n, a.Heads*a.Channels)
	}
	return nil
}

// BackwardDst is the first half of the backward pass of a GATv2ForwardLR
// attention: the gradients of x_r (into dxr, N x HC) and att (into datt,
// zeroed here). It saves what BackwardSrc needs, so that a caller can
// consume dxr (a weight gradient x^T·dxr) and reuse its memory for dxl.
// When SourceFirst, BackwardSrc may run first instead; BackwardDst then
// sums what it stored, and datt gets both passes' shares.
func (a *GATv2) BackwardDst(g *Graph, xl, xr, att, dout, dxr, datt *Tensor) error {
	hc := a.Heads * a.Channels
	if xl.Rows != g.n || xr.Rows != g.n || dxr.Rows != g.n || xl.Cols != hc || xr.Cols != hc || dxr.Cols != hc {
		return shapeErr("GATv2.BackwardDst", "xl %dx%d, xr %dx%d, dxr %dx%d, want %dx%d", xl.Rows, xl.Cols, xr.Rows, xr.Cols, dxr.Rows, dxr.Cols, g.n, hc)
	}
	if err := a.checkDout("GATv2.BackwardDst", g, dout.Rows, dout.Cols, false); err != nil {
		return err
	}
	return a.backwardDst(g, matOf(xl), matOf(xr), att, dout.ptr, matOf(dxr), datt)
}

// BackwardDstBF16 is BackwardDst after GATv2ForwardBF16: x_l, x_r, dout
// and dxr are bfloat16, datt float32 (summed in float32 over the edges).
func (a *GATv2) BackwardDstBF16(g *Graph, xl, xr *BF16Tensor, att *Tensor, dout, dxr *BF16Tensor, datt *Tensor) error {
	hc := a.Heads * a.Channels
	if xl.Rows != g.n || xr.Rows != g.n || dxr.Rows != g.n || xl.Cols != hc || xr.Cols != hc || dxr.Cols != hc {
		return shapeErr("GATv2.BackwardDstBF16", "xl %dx%d, xr %dx%d, dxr %dx%d, want %dx%d", xl.Rows, xl.Cols, xr.Rows, xr.Cols, dxr.Rows, dxr.Cols, g.n, hc)
	}
	if err := a.checkDout("GATv2.BackwardDstBF16", g, dout.Rows, dout.Cols, true); err != nil {
		return err
	}
	return a.backwardDst(g, matOf16(xl), matOf16(xr), att, dout.ptr, matOf16(dxr), datt)
}

// BackwardSrc is the second half: the gradient of x_l into dxl (N x HC),
// after BackwardDst. It releases what BackwardDst saved. When SourceFirst
// it may run first (the edge-coefficient backward), before a BackwardDst
// that then completes datt; that spends the forward pass's scores, and a
// later BackwardSrc called before BackwardDst returns an error.
func (a *GATv2) BackwardSrc(g *Graph, xl, xr, att, dout, dxl *Tensor) error {
	hc := a.Heads * a.Channels
	if xl.Rows != g.n || xr.Rows != g.n || dxl.Rows != g.n || xl.Cols != hc || xr.Cols != hc || dxl.Cols != hc {
		return shapeErr("GATv2.BackwardSrc", "xl %dx%d, xr %dx%d, dxl %dx%d, want %dx%d", xl.Rows, xl.Cols, xr.Rows, xr.Cols, dxl.Rows, dxl.Cols, g.n, hc)
	}
	if err := a.checkDout("GATv2.BackwardSrc", g, dout.Rows, dout.Cols, false); err != nil {
		return err
	}
	return a.backwardSrc(g, matOf(xl), matOf(xr), att, dout.ptr, matOf(dxl))
}

// BackwardSrcBF16 is BackwardSrc after BackwardDstBF16: dxl is bfloat16.
func (a *GATv2) BackwardSrcBF16(g *Graph, xl, xr *BF16Tensor, att *Tensor, dout, dxl *BF16Tensor) error {
	hc := a.Heads * a.Channels
	if xl.Rows != g.n || xr.Rows != g.n || dxl.Rows != g.n || xl.Cols != hc || xr.Cols != hc || dxl.Cols != hc {
		return shapeErr("GATv2.BackwardSrcBF16", "xl %dx%d, xr %dx%d, dxl %dx%d, want %dx%d", xl.Rows, xl.Cols, xr.Rows, xr.Cols, dxl.Rows, dxl.Cols, g.n, hc)
	}
	if err := a.checkDout("GATv2.BackwardSrcBF16", g, dout.Rows, dout.Cols, true); err != nil {
		return err
	}
	return a.backwardSrc(g, matOf16(xl), matOf16(xr), att, dout.ptr, matOf16(dxl))
}

// launchShape is the launch shape of the backward passes over n work
// items (rows or edge tiles): blocks of 256 threads, a group of lanes per
// (item, head), and the kernels' name suffix. The destination pass's grid
// (dst) keeps the number of groups a multiple of H so that each of its
// lanes sees one head and can sum att's gradient in registers; the source
// pass's (src) covers every group.
func (a *GATv2) launchShape(d *Device, n int) (dst, src, block int, suffix string) {
	k, _ := gatShape(a.Channels)
	block = gatv2Block
	src = d.gridFor(int64(n)*int64(a.Heads)*int64(k.g), block)
	dst = src
	if gpb := block / k.g; (dst*gpb)%a.Heads != 0 {
		dst = max(1, dst/a.Heads*a.Heads)
	}
	return dst, src, block, attnSuffix(k, a.bf16(), a.wide)
}

func (a *GATv2) backwardDst(g *Graph, xl, xr mat, att *Tensor, dout uintptr, dxr mat, datt *Tensor) error {
	d := att.buf.dev
	hc := a.Heads * a.Channels
	if datt.Len() != hc || att.Len() != hc {
		return shapeErr("GATv2.Backward", "att %d, datt %d, want %d", att.Len(), datt.Len(), hc)
	}
	if a.srcDone {
		return a.backwardDstEdge(g, xr, att, dxr, datt)
	}
	if err := datt.Fill(0); err != nil {
		return err
	}
	a.pendingSrc = true
	pass := g.attnPass(false)
	_, _, block, suffix := a.launchShape(d, g.n)
	suffix += dstVariant(a.Channels, a.bf16(), a.wide)
	// launch runs the pass over n items (the rows, or the heavy rows'
	// tiles with dr their scratch) with args, CSR and ATTN_ROWS first,
	// and the att gradient's reduction (dattRed) last.
	red, shared := a.dattRed()
	launch := func(kernel string, n int, args []any) error {
		grid, _, _, _ := a.launchShape(d, n)
		return d.launchShared(kernel+suffix, [3]int{grid, 1, 1}, [3]int{block, 1, 1}, shared, append(args, red)...)
	}
	a.saved = a.saveEdges(g)
	if !a.saved {
		if a.d == nil {
			var err error
			if a.d, err = d.Empty(g.n, a.Heads); err != nil {
				return err
			}
		}
		// D per (row, head) goes to a.d from the row pass only.
		rest := func(dr mat, dd uintptr, n int) []any {
			return append([]any{xl.ptr, xl.ld, xr.ptr, xr.ld, att, a.outPtr(), a.LSE, dout, dr.ptr, dr.ld, dd, datt, n, a.Heads, a.Slope, a.Channels, tune.AttnPrefetch}, a.outArgs()...)
		}
		if err := launch("gatv2_bwd_dst", g.n, pass.rowArgs(rest(dxr, a.d.ptr, g.n)...)); err != nil || !pass.split {
			return err
		}
		return splitSum(pass, []sumOut{{hc, dxr.ptr, dxr.ld, a.bf16()}}, func(parts []*Tensor) error {
			return launch("gatv2_bwd_dst", pass.hv.ntiles, pass.tileArgs(rest(matOf(parts[0]), 0, pass.hv.ntiles)...))
		})
	}
	a.freeEdges()
	eh := g.edges * a.Heads
	var err error
	if a.eas, err = d.Empty(eh, 2); err != nil {
		return err
	}
	// width/8 sign bytes per edge and head (C/8, or the masked kernel's
	// padded width), in whole floats.
	k, _ := gatShape(a.Channels)
	if a.esign, err = d.Empty((eh*(k.width()/8)+3)/4, 1); err != nil {
		a.freeEdges()
		return err
	}
	rest := func(dr mat, n int) []any {
		return append([]any{xl.ptr, xl.ld, xr.ptr, xr.ld, att, a.outPtr(), a.LSE, dout, dr.ptr, dr.ld, a.eas, a.esign, datt, n, a.Heads, a.Slope, a.Dropout.P, a.Dropout.Seed, a.Channels, tune.AttnPrefetch}, a.outArgs()...)
	}
	if err := launch("gatv2_bwd_dsts", g.n, pass.rowArgs(rest(dxr, g.n)...)); err != nil || !pass.split {
		return err
	}
	return splitSum(pass, []sumOut{{hc, dxr.ptr, dxr.ld, a.bf16()}}, func(parts []*Tensor) error {
		return launch("gatv2_bwd_dsts", pass.hv.ntiles, pass.tileArgs(rest(matOf(parts[0]), pass.hv.ntiles)...))
	})
}

// dattRed is the last argument of the backward passes that sum att's
// gradient (gatv2_bwd_dst, gatv2_bwd_dsts, gatv2_bwd_srce, gatv2_bwd_dste)
// and the dynamic shared memory their launch gives a block: with
// tune.GATv2DattBlock, true and 4·width bytes for each of the block's
// 256/G lane groups (gatv2.cu's gatv2_datt_flush: the block sums its
// groups' shares before one atomic add per channel), else false and 0.
func (a *GATv2) dattRed() (bool, int) {
	if !tune.GATv2DattBlock {
		return false, 0
	}
	k, _ := gatShape(a.Channels)
	return true, gatv2Block / k.g * k.width() * 4
}

// gatv2Block is the backward passes' block size (launchShape).
const gatv2Block = 256

// srceResident is how many blocks of the edge-coefficient source pass's
// variant (srcVariant's suffix) an SM holds by the variant's
// __launch_bounds__(256, 3) in gatv2.cu and gatv2_sm80.cu (at most 85
// registers a thread, and they take 80 at sm_90; _balcp's 35 KB of shared
// memory a block in float32 fit three times too): 3 for _lb3, _e1, _bal
// and _balcp; 0 where the registers, and so the count, are the
// compiler's.
func srceResident(variant string) int {
	switch variant {
	case "_lb3", "_e1", "_bal", "_balcp":
		return 3
	}
	return 0
}

// dstVariant is the name suffix ("_lb3", "_lb4") of the destination
// passes' variant tune.GATv2Variant selects for heads of c channels, or
// "" for the current kernels.
func dstVariant(c int, bf16, wide bool) string {
	v := tune.GATv2Variant
	k, _ := gatShape(c)
	if v == "" || k.mask || (bf16 && wide && k.wide()) || !slices.Contains(tune.GATv2Variants[k.width()], v) {
		return ""
	}
	return "_" + v
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
	k, _ := gatShape(a.Channels)
	return int64(g.edges)*int64(a.Heads)*int64(8+k.width()/8) <= saveEdgeLimit
}

func (a *GATv2) backwardSrc(g *Graph, xl, xr mat, att *Tensor, dout uintptr, dxl mat) error {
	if a.SourceFirst() && !a.pendingSrc {
		return a.backwardSrcEdge(g, xl, att, dout, dxl)
	}
	if !a.pendingSrc && a.spent {
		return fmt.Errorf("gnnlib/cuda: GATv2.BackwardSrc: an edge-coefficient backward pass spent the forward pass's scores; run BackwardDst first")
	}
	a.pendingSrc = false
	d := att.buf.dev
	hc := a.Heads * a.Channels
	pass := g.attnPass(true)
	_, _, block, suffix := a.launchShape(d, g.n)
	launch := func(kernel string, n int, args []any) error {
		_, grid, _, _ := a.launchShape(d, n)
		return d.launch(kernel+suffix, grid, block, args...)
	}
	// run runs the pass over the rows, then (when it splits) over the
	// heavy rows' tiles into scratch summed into dxl.
	run := func(kernel string, rest func(dq mat, n int) []any) error {
		if err := launch(kernel, g.n, pass.rowArgs(rest(dxl, g.n)...)); err != nil || !pass.split {
			return err
		}
		return splitSum(pass, []sumOut{{hc, dxl.ptr, dxl.ld, a.bf16()}}, func(parts []*Tensor) error {
			return launch(kernel, pass.hv.ntiles, pass.tileArgs(rest(matOf(parts[0]), pass.hv.ntiles)...))
		})
	}
	if !a.saved {
		if a.d == nil {
			return fmt.Errorf("gnnlib/cuda: GATv2.BackwardSrc before BackwardDst")
		}
		return run("gatv2_bwd_src", func(dq mat, n int) []any {
			return []any{xl.ptr, xl.ld, xr.ptr, xr.ld, att, a.LSE, a.d, dout, dq.ptr, dq.ld, n, a.Heads, a.Slope, a.Channels, tune.AttnPrefetch}
		})
	}
	if a.eas == nil {
		return fmt.Errorf("gnnlib/cuda: GATv2.BackwardSrc before BackwardDst")
	}
	defer a.freeEdges()
	tperm, err := g.transposePerm()
	if err != nil {
		return err
	}
	return run("gatv2_bwd_srcs", func(dq mat, n int) []any {
		return []any{tperm, a.eas, a.esign, att, dout, dq.ptr, dq.ld, n, a.Heads, a.Slope, a.Channels, tune.AttnPrefetch}
	})
}

// backwardSrcEdge is the edge-coefficient source pass: D = dOut·out per
// (row, head) (gatv2_bwd_dd), then over the transpose dxl, each edge's
// score gradient (into a.es, over its score) and x_l's share of att's
// gradient (a.dattSrc) (gatv2_bwd_srce), heavy rows split into edge tiles
// as the other passes.
func (a *GATv2) backwardSrcEdge(g *Graph, xl mat, att *Tensor, dout uintptr, dxl mat) error {
	d := att.buf.dev
	hc := a.Heads * a.Channels
	if att.Len() != hc {
		return shapeErr("GATv2.BackwardSrc", "att %d, want %d", att.Len(), hc)
	}
	var err error
	if a.d == nil {
		if a.d, err = d.Empty(g.n, a.Heads); err != nil {
			return err
		}
	}
	if a.dattSrc == nil {
		if a.dattSrc, err = d.Empty(1, hc); err != nil {
			return err
		}
	}
	if err := a.dattSrc.Fill(0); err != nil {
		return err
	}
	k, _ := gatShape(a.Channels)
	_, _, block, suffix := a.launchShape(d, g.n)
	if g.n > 0 {
		if err := d.launch("gatv2_bwd_dd"+suffix, d.gridFor(int64(g.n)*int64(a.Heads)*int64(k.g), block), block, append([]any{a.outPtr(), dout, a.d, g.n, a.Heads, a.Channels}, a.outArgs()...)...); err != nil {
			return err
		}
	}
	tperm, err := g.transposePerm()
	if err != nil {
		return err
	}
	pass := g.attnPass(true)
	red, shared := a.dattRed()
	variant := a.srcVariant(k)
	if variant == "_balcp" && !d.hasBF16() {
		variant = "_bal" // _balcp needs cp.async (sm_80)
	}
	kernel := "gatv2_bwd_srce" + suffix + variant
	if variant == "_balcp" {
		kernel = "sm80_" + kernel // gatv2_sm80.cu's, in the sm80 module
	}
	launch := func(n int, args []any) error {
		grid, _, _, _ := a.launchShape(d, n)
		if per := srceResident(variant); red && per > 0 && grid > d.nsm*per {
			// One wave: each block meets its closing barrier and adds its
			// share of att's gradient once (gatv2_datt_flush), after about
			// nsm·32/(nsm·per) times the rows, instead of its warps
			// waiting there for the block's slowest every few rows.
			grid = max(1, d.nsm*per/a.Heads*a.Heads)
		}
		return d.launchShared(kernel, [3]int{grid, 1, 1}, [3]int{block, 1, 1}, shared, append(args, red)...)
	}
	rest := func(dq mat, n int) []any {
		return []any{tperm, xl.ptr, xl.ld, att, a.LSE, a.d, a.es, a.esgn, a.es, dout, dq.ptr, dq.ld, a.dattSrc, n, a.Heads, a.Slope, a.Dropout.P, a.Dropout.Seed, a.Channels, tune.AttnPrefetch}
	}
	a.spent = true // from the launch on, es holds score gradients
	if err := launch(g.n, pass.rowArgs(rest(dxl, g.n)...)); err != nil {
		return err
	}
	if pass.split {
		if err := splitSum(pass, []sumOut{{hc, dxl.ptr, dxl.ld, a.bf16()}}, func(parts []*Tensor) error {
			return launch(pass.hv.ntiles, pass.tileArgs(rest(matOf(parts[0]), pass.hv.ntiles)...))
		}); err != nil {
			return err
		}
	}
	a.srcDone = true
	return nil
}

// backwardDstEdge is the edge-coefficient destination pass, after
// backwardSrcEdge: datt starts from the source pass's share, and
// gatv2_bwd_dste sums each row's stored score gradients (in a.es) and
// sign bits into dxr and x_r's share of datt.
func (a *GATv2) backwardDstEdge(g *Graph, xr mat, att *Tensor, dxr mat, datt *Tensor) error {
	d := att.buf.dev
	hc := a.Heads * a.Channels
	a.srcDone = false
	// A kernel, not a driver copy, so that a replayed segment (GraphReplay)
	// goes on past it.
	if err := d.launch("copy_cols", d.gridFor(int64(hc), 256), 256, a.dattSrc, datt, 1, hc, hc, 0, hc, 0); err != nil {
		return err
	}
	_, _, block, suffix := a.launchShape(d, g.n)
	if a.bal {
		suffix += "_bal" // the ballot sign words (gatv2_ballots)
	}
	pass := g.attnPass(false)
	red, shared := a.dattRed()
	launch := func(n int, args []any) error {
		grid, _, _, _ := a.launchShape(d, n)
		return d.launchShared("gatv2_bwd_dste"+suffix, [3]int{grid, 1, 1}, [3]int{block, 1, 1}, shared, append(args, red)...)
	}
	rest := func(dr mat, n int) []any {
		return []any{xr.ptr, xr.ld, att, a.es, a.esgn, dr.ptr, dr.ld, datt, n, a.Heads, a.Slope, a.Channels}
	}
	if err := launch(g.n, pass.rowArgs(rest(dxr, g.n)...)); err != nil || !pass.split {
		return err
	}
	return splitSum(pass, []sumOut{{hc, dxr.ptr, dxr.ld, a.bf16()}}, func(parts []*Tensor) error {
		return launch(pass.hv.ntiles, pass.tileArgs(rest(matOf(parts[0]), pass.hv.ntiles)...))
	})
}

// freeEdgeCoef releases what the edge-coefficient backward keeps.
func (a *GATv2) freeEdgeCoef() {
	for _, t := range []**Tensor{&a.es, &a.esgn, &a.dattSrc} {
		if *t != nil {
			(*t).Free()
			*t = nil
		}
	}
	a.srcDone = false
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
	a.Out16.Free()
	a.LSE.Free()
	if a.d != nil {
		a.d.Free()
	}
	a.freeEdges()
	a.freeEdgeCoef()
}
