package cuda

import "math"

// SplitHeavyRows selects the degree-aware mapping of the fused attention
// kernels (GAT, GATv2, the Graph Transformer), forward and backward. When
// true (the default) and a graph has heavy rows (more than heavyTile
// edges, listed at upload: Graph.String shows the statistics), each pass
// runs once over the rows with the heavy ones skipped and once over the
// heavy rows' edge tiles, each tile leaving its partial softmax state or
// sum in scratch, merged per row (attn_merge_softmax, attn_merge_sum):
// one 15k-edge row of a power-law graph no longer holds the pass up
// behind one lane group. Graphs without heavy rows run the one row pass
// either way. False keeps one lane group per row. Set it before work is
// queued.
var SplitHeavyRows = true

// attnPass is how one attention pass maps the rows of one direction of a
// graph (its CSR, or the transpose for the source-side backward passes)
// onto work items.
type attnPass struct {
	d        *Device
	ptr, idx *buffer
	hv       heavyRows
	split    bool
}

// attnPass returns the mapping of the pass over g's CSR by destination
// (transpose false) or by source.
func (g *Graph) attnPass(transpose bool) attnPass {
	p := attnPass{d: g.dev, ptr: g.indptr, idx: g.idx, hv: g.hv}
	if transpose {
		p.ptr, p.idx, p.hv = g.tptr, g.tidx, g.thv
	}
	p.split = SplitHeavyRows && p.hv.n > 0
	return p
}

// rowArgs are a kernel's CSR and ATTN_ROWS arguments for the pass over
// the rows, followed by rest: heavy rows skipped when the pass splits.
func (p attnPass) rowArgs(rest ...any) []any {
	tile := math.MaxInt32
	if p.split {
		tile = heavyTile
	}
	return append([]any{p.ptr, p.idx, uintptr(0), uintptr(0), 0, tile}, rest...)
}

// tileArgs are the same arguments for the pass over the heavy rows' edge
// tiles (p.hv.ntiles items).
func (p attnPass) tileArgs(rest ...any) []any {
	return append([]any{p.ptr, p.idx, p.hv.heavy, p.hv.tiles, p.hv.n, heavyTile}, rest...)
}

// scratch returns the tiles' partial results: one ntiles x w tensor per
// width, freed together by the function returned.
func (p attnPass) scratch(ws ...int) ([]*Tensor, func(), error) {
	ts := make([]*Tensor, len(ws))
	free := func() { freeAll(ts) }
	for i, w := range ws {
		var err error
		if ts[i], err = p.d.Empty(p.hv.ntiles, w); err != nil {
			free()
			return nil, nil, err
		}
	}
	return ts, free, nil
}

// mergeSoftmax writes each heavy row's output (out, N x heads·c,
// plus skip's row at stride lds when skip is not 0) and log-sum-exp
// from its tiles' outputs pout and log-sum-exps plse (float32). With
// bf16, out and skip are bfloat16 (attn_merge_softmax_bf16).
func (p attnPass) mergeSoftmax(heads, c int, pout, plse *Tensor, out uintptr, lse *Tensor, skip uintptr, lds int64, bf16 bool) error {
	grid := p.d.gridFor(int64(p.hv.n)*int64(heads)*32, 256)
	return p.d.launch("attn_merge_softmax"+bf16Suffix(bf16), grid, 256, p.hv.heavy, p.hv.tiles, p.hv.n, p.hv.ntiles, heads, c, pout, plse, out, lse, skip, lds)
}

// mergeSum writes each heavy row's w values at dst (row stride ld,
// bfloat16 with bf16) as the sum of its tiles' float32 rows of part.
func (p attnPass) mergeSum(w int, part *Tensor, dst uintptr, ld int64, bf16 bool) error {
	grid := p.d.gridFor(int64(p.hv.n)*int64(w), 256)
	return p.d.launch("attn_merge_sum"+bf16Suffix(bf16), grid, 256, p.hv.heavy, p.hv.tiles, p.hv.n, p.hv.ntiles, w, part, dst, ld)
}

// bf16Suffix is the name suffix of a kernel's bfloat16 version.
func bf16Suffix(bf16 bool) string {
	if bf16 {
		return "_bf16"
	}
	return ""
}

// BF16WideLoads selects, for the bfloat16 GATv2 and Transformer kernels
// of the exact widths 256, 512 and 1024 (lanes holding an even number of
// float4s), the wide lane layout (the _bf16w kernels of gatv2.cu and
// transformer.cu): each lane loads 8
// bfloat16 channels at a time (16 bytes) instead of 4 (8 bytes). The
// two layouts sum a head's channels in different orders, so their
// results differ by rounding (TestGATv2LayoutsEmulated). It is off by
// default: on an H100 (2026-12-06) the wide GATv2 backward took 4.02 ms
// against 2.58 ms with 8-byte loads at 1×256 (the recomputing passes).
// The edge-coefficient passes have the wide layout too at 1×256 with a
// ballot tune.GATv2EdgeVariant; on an H100 (2026-12-07) their attention
// took 1.86 against the 8-byte layout's 1.92 ms with "balcp" and 2.05
// against 2.03 with "bal", within one run's spread, so the default
// stays. A forward pass fixes the choice for its backward passes. Set it
// before work is queued.
var BF16WideLoads = false

// attnSuffix is the name suffix of the GATv2 and Transformer kernels for
// mapping k: k.suffix(), then _bf16, or _bf16w for the wide layout
// (wide: BF16WideLoads when the forward pass ran, and k takes it).
func attnSuffix(k gatv2Kernel, bf16, wide bool) string {
	switch {
	case bf16 && wide && k.wide():
		return k.suffix() + "_bf16w"
	case bf16:
		return k.suffix() + "_bf16"
	}
	return k.suffix()
}

// attnForward runs the forward pass of a fused attention kernel: it
// allocates the output (a row of heads·c per destination) and the
// log-sum-exp (one per destination and head), launches kernel with
// lanes threads per (row, head) over the rows, and, where the graph
// splits heavy rows, over their edge tiles, merged by splitForward (skip
// and lds as there). args gives the kernel's arguments for an output, a
// log-sum-exp and a row count, and whether they are the tiles'. The
// output is float32, or bfloat16 (out16) for a _bf16 kernel (bf16: its
// tiles' scratch stays float32).
func attnForward(d *Device, g *Graph, kernel string, heads, c, lanes int, bf16 bool, skip uintptr, lds int64, args func(out uintptr, lse *Tensor, n int, tiles bool) []any) (out *Tensor, out16 *BF16Tensor, lse *Tensor, err error) {
	var optr uintptr
	freeOut := func() {
		out.Free()
		out16.Free()
	}
	if bf16 {
		out16, err = d.EmptyBF16(g.n, heads*c)
		if err == nil {
			optr = out16.ptr
		}
	} else {
		out, err = d.Empty(g.n, heads*c)
		if err == nil {
			optr = out.ptr
		}
	}
	if err != nil {
		return nil, nil, nil, err
	}
	lse, err = d.Empty(g.n, heads)
	if err != nil {
		freeOut()
		return nil, nil, nil, err
	}
	const block = 256
	pass := g.attnPass(false)
	fwd := func(n int, a []any) error {
		return d.launch(kernel, d.gridFor(int64(n)*int64(heads)*int64(lanes), block), block, a...)
	}
	err = fwd(g.n, pass.rowArgs(args(optr, lse, g.n, false)...))
	if err == nil && pass.split {
		err = splitForward(pass, heads, c, optr, lse, skip, lds, bf16, func(pout, plse *Tensor) error {
			return fwd(pass.hv.ntiles, pass.tileArgs(args(pout.ptr, plse, pass.hv.ntiles, true)...))
		})
	}
	if err != nil {
		freeOut()
		lse.Free()
		return nil, nil, nil, err
	}
	return out, out16, lse, nil
}

// splitForward finishes a forward pass that split: tiles launches the
// pass over the edge tiles into the scratch it is given (an output row
// and a log-sum-exp per tile and head), merged into out and lse (with
// skip's rows, when not 0, at stride lds; both bfloat16 with bf16).
func splitForward(p attnPass, heads, c int, out uintptr, lse *Tensor, skip uintptr, lds int64, bf16 bool, tiles func(pout, plse *Tensor) error) error {
	ts, free, err := p.scratch(heads*c, heads)
	if err != nil {
		return err
	}
	defer free()
	if err := tiles(ts[0], ts[1]); err != nil {
		return err
	}
	return p.mergeSoftmax(heads, c, ts[0], ts[1], out, lse, skip, lds, bf16)
}

// sumOut is one output of a backward pass that split: w values a row at
// dst, row stride ld, bfloat16 with bf16 (the tiles' parts are float32
// either way).
type sumOut struct {
	w    int
	dst  uintptr
	ld   int64
	bf16 bool
}

// splitSum finishes a backward pass that split: tiles launches the pass
// over the edge tiles into one scratch tensor per output (ntiles x w,
// row stride w), whose rows are summed into each heavy row of the output.
func splitSum(p attnPass, outs []sumOut, tiles func(parts []*Tensor) error) error {
	ws := make([]int, len(outs))
	for i, o := range outs {
		ws[i] = o.w
	}
	parts, free, err := p.scratch(ws...)
	if err != nil {
		return err
	}
	defer free()
	if err := tiles(parts); err != nil {
		return err
	}
	for i, o := range outs {
		if err := p.mergeSum(o.w, parts[i], o.dst, o.ld, o.bf16); err != nil {
			return err
		}
	}
	return nil
}
