package cuda

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Under tensor.Autocast(tensor.BFloat16) the device keeps the outputs of
// the ops (and the gradients of the backward pass) as BF16Tensor storage,
// two bytes a value (tensor.HalfStorer). The ops that have bfloat16
// kernels read and write it directly: MatMul on the tensor cores
// (MatMulBF16Out), GraphSpMM and GraphSpMMBias (SpMMBF16Out, SpMMBF16TOut,
// then BiasActBF16 for the bias), the addition of a bias row (Binary),
// ReLU, Dropout and ReLUDropout and their gradients (BiasActBF16,
// ActBackwardBF16). Every other op reads a
// bfloat16 operand through a float32 copy (view), exact, freed by the
// garbage collector's finalizer (ColSum has col_sum_bf16); AddTo
// into bfloat16 storage adds in float32 and rounds once.

// Backend returns the device holding t: a BF16Tensor is a
// tensor.Storage, which tensor.Autocast stores ops' outputs in.
func (t *BF16Tensor) Backend() tensor.Backend { return t.buf.dev.be }

// DType returns tensor.BFloat16.
func (t *BF16Tensor) DType() tensor.DType { return tensor.BFloat16 }

// computeCapability is d's compute capability as its description
// "… (sm_90, …)" names it (90), or 0 where it names none.
func (d *Device) computeCapability() int {
	i := strings.Index(d.desc, "(sm_")
	if i < 0 {
		return 0
	}
	s := d.desc[i+4:]
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	cc, _ := strconv.Atoi(s[:j])
	return cc
}

// hasBF16 reports whether d has bfloat16 tensor cores (compute
// capability 8.0 or later).
func (d *Device) hasBF16() bool { return d.computeCapability() >= 80 }

// autocastBF16 reports whether the calling goroutine runs under
// Autocast(BFloat16) on a device with bfloat16 kernels: the ops with
// bfloat16 kernels then write bfloat16 storage.
func (d *Device) autocastBF16() bool {
	return tensor.AutocastDType() == tensor.BFloat16 && d.hasBF16()
}

// halfView returns x's storage as a bfloat16 matrix of x's shape when it
// is bfloat16 storage of d.
func (d *Device) halfView(x *tensor.Tensor) (*BF16Tensor, bool) {
	h, ok := x.Storage().(*BF16Tensor)
	if !ok || h.buf.dev != d {
		return nil, false
	}
	rows, cols := matrixShape(x.Shape())
	return &BF16Tensor{buf: h.buf, ptr: h.ptr, Rows: rows, Cols: cols}, true
}

// widen returns a float32 copy of bfloat16 storage h viewed as rows x
// cols: how the ops without bfloat16 kernels read it.
func (d *Device) widen(h *BF16Tensor, rows, cols int) (*Tensor, error) {
	w, err := h.Float32()
	if err != nil {
		return nil, err
	}
	w.Rows, w.Cols = rows, cols
	return w, nil
}

// halfOperand returns x in bfloat16: its own storage when it is, else a
// rounded copy, which release frees (after the launches that read it:
// the stream orders them before any reuse of the block).
func (d *Device) halfOperand(x *tensor.Tensor) (h *BF16Tensor, release func(), err error) {
	if h, ok := d.halfView(x); ok {
		return h, func() {}, nil
	}
	v, err := d.view(x)
	if err != nil {
		return nil, nil, err
	}
	h, err = ToBF16(v)
	if err != nil {
		return nil, nil, err
	}
	return h, h.Free, nil
}

// ToHalf implements tensor.HalfStorer for bfloat16: x's values rounded
// (to nearest, ties to even) into new bfloat16 storage. Float16 storage
// is not kept (no float16 kernels): the error wraps tensor.ErrNotOnDevice,
// and Autocast(Float16) rounds in float32 memory (RoundHalf).
func (d *backend) ToHalf(x *tensor.Tensor, dt tensor.DType) (tensor.Storage, error) {
	if dt != tensor.BFloat16 {
		return nil, fmt.Errorf("gnnlib/cuda: %v storage: %w", dt, tensor.ErrNotOnDevice)
	}
	if h, ok := d.halfView(x); ok {
		out, err := d.EmptyBF16(h.Rows, h.Cols)
		if err != nil || h.Len() == 0 {
			return out, err
		}
		return out, d.do(func(drv driver) error { return drv.dtod(out.ptr, h.ptr, h.Bytes()) })
	}
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	return ToBF16(v)
}

// addToHalf is AddTo into bfloat16 storage: dst = bf16(dst + src), summed
// in float32.
func (d *Device) addToHalf(dst *BF16Tensor, src *tensor.Tensor) error {
	w, err := d.widen(dst, dst.Rows, dst.Cols)
	if err != nil {
		return err
	}
	defer w.Free()
	s, err := d.view(src)
	if err != nil {
		return err
	}
	if err := Axpby(w, 1, s, 1); err != nil {
		return err
	}
	n := int64(w.Len())
	return d.launch("f32_to_bf16", d.gridFor(n, 256), 256, w, dst.ptr, n)
}

// matMulHalf is MatMul under Autocast(BFloat16): both operands in
// bfloat16 (a float32 one rounded), float32 sums on the tensor cores, the
// product stored in bfloat16.
func (d *Device) matMulHalf(a, b *tensor.Tensor, transA, transB bool) (tensor.Storage, error) {
	ha, ra, err := d.halfOperand(a)
	if err != nil {
		return nil, err
	}
	defer ra()
	hb, rb, err := d.halfOperand(b)
	if err != nil {
		return nil, err
	}
	defer rb()
	m, n := ha.Rows, hb.Cols
	if transA {
		m = ha.Cols
	}
	if transB {
		n = hb.Rows
	}
	if tune.BF16SplitF32 && d.gemmBF16SplitsK(ha, hb, transA, transB) {
		// Split-K (a weight gradient Xᵀ·dY) sums in float32 anyway:
		// the float32 sums are the result, which Autocast rounds in
		// place when they are a parameter's gradient
		// (tensor.RoundParamGradsInPlace) instead of this op rounding
		// them into bfloat16 and the parameter widening them again.
		out, err := d.Empty(m, n)
		if err != nil || out.Len() == 0 {
			return out, err
		}
		if err := MatMulBF16(out, ha, hb, transA, transB); err != nil {
			out.Free()
			return nil, err
		}
		return out, nil
	}
	out, err := d.EmptyBF16(m, n)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	if err := MatMulBF16Out(out, ha, hb, transA, transB); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// gemmBF16SplitsK reports whether gemmBF16 splits the inner dimension of
// op(a)·op(b) across blocks (its float32 partial sums added atomically).
func (d *Device) gemmBF16SplitsK(a, b *BF16Tensor, transA, transB bool) bool {
	m, k := a.Rows, a.Cols
	if transA {
		m, k = k, m
	}
	n := b.Cols
	if transB {
		n = b.Rows
	}
	if m == 0 || n == 0 || k == 0 || transA && transB {
		return false
	}
	lda, ldb := k, n
	if transA {
		lda = m
	}
	if transB {
		ldb = k
	}
	return d.gemmBF16Choose(m, n, k, transA, transB, a.ptr, lda, b.ptr, ldb).split > 1
}

// spmmHalf is GraphSpMM (GraphSpMMBias with b) under Autocast(BFloat16):
// x read in bfloat16, float32 sums, the result (plus b) stored in
// bfloat16.
func (d *Device) spmmHalf(dg *Graph, transpose bool, x, b *tensor.Tensor) (tensor.Storage, error) {
	hx, rx, err := d.halfOperand(x)
	if err != nil {
		return nil, err
	}
	defer rx()
	rows := dg.n
	if transpose {
		rows = dg.nsrc
	}
	out, err := d.EmptyBF16(rows, hx.Cols)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	if transpose {
		err = SpMMBF16TOut(out, dg, hx)
	} else {
		err = SpMMBF16Out(out, dg, hx)
	}
	if err == nil && b != nil {
		var bv *Tensor
		if bv, err = d.view(b); err == nil {
			err = BiasActBF16(out, out, &Tensor{buf: bv.buf, ptr: bv.ptr, Rows: 1, Cols: bv.Len()}, false, 0, 0)
		}
	}
	if err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// actHalf is ReLU (relu), Dropout (p > 0) or both under
// Autocast(BFloat16): bias_act over bfloat16 storage, the mask of the
// float32 kernel for the same seed.
func (d *Device) actHalf(x *tensor.Tensor, relu bool, p float32, seed uint64) (tensor.Storage, error) {
	hx, rx, err := d.halfOperand(x)
	if err != nil {
		return nil, err
	}
	defer rx()
	out, err := d.EmptyBF16(hx.Rows, hx.Cols)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	if err := BiasActBF16(out, hx, nil, relu, p, seed); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// actGradHalf is the gradient through actHalf from its output y, under
// Autocast(BFloat16).
func (d *Device) actGradHalf(g, y *tensor.Tensor, relu bool, p float32) (tensor.Storage, error) {
	hg, rg, err := d.halfOperand(g)
	if err != nil {
		return nil, err
	}
	defer rg()
	hy, ry, err := d.halfOperand(y)
	if err != nil {
		return nil, err
	}
	defer ry()
	out, err := d.EmptyBF16(hg.Rows, hg.Cols)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	if err := ActBackwardBF16(out, hy, hg, relu, p); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// actGradColSumHalf is ReLUDropoutGradColSum of bfloat16 g and y: the
// gradient through the activation stored in bfloat16 and its column sums
// (the bias gradient, float32) in one pass (act_backward_colsum_bf16),
// the values of actGradHalf and then colSumHalf.
func (d *Device) actGradColSumHalf(g, y *BF16Tensor, p float32) (gx, colSum tensor.Storage, err error) {
	if g.Len() != y.Len() || g.Cols != y.Cols {
		return nil, nil, shapeErr("ReLUDropoutGradColSum", "g %dx%d, y %dx%d", g.Rows, g.Cols, y.Rows, y.Cols)
	}
	out, err := d.EmptyBF16(y.Rows, y.Cols)
	if err != nil {
		return nil, nil, err
	}
	sum, err := d.Zeros(1, y.Cols)
	if err != nil || y.Len() == 0 {
		if err != nil {
			out.Free()
		}
		return out, sum, err
	}
	kernel := "act_backward_colsum_bf16"
	gx2, gy, chunk := colGrid(&Tensor{Rows: y.Rows, Cols: y.Cols})
	block := 128
	if tune.BF16Vec8 && y.Cols%8 == 0 && y.ptr%16 == 0 && g.ptr%16 == 0 && out.ptr%16 == 0 {
		// 8 columns a lane, 8 warps a block over 256-row chunks.
		const vecChunk = 256
		kernel, gx2, gy, chunk, block = "act_backward_colsum_bf16_v8", (y.Cols+255)/256, (y.Rows+vecChunk-1)/vecChunk, vecChunk, 256
	}
	if err := d.launch3(kernel, [3]int{gx2, gy, 1}, [3]int{block, 1, 1}, y.ptr, g.ptr, out.ptr, sum, y.Rows, y.Cols, chunk, true, p); err != nil {
		out.Free()
		sum.Free()
		return nil, nil, err
	}
	return out, sum, nil
}

// narrowHalf is Narrow of bfloat16 storage h (x's shape) under
// Autocast(BFloat16): the slice copied as it is into bfloat16 storage
// (copy_cols_bf16), instead of a float32 copy of all of h and a float32
// slice that Autocast then rounds again.
func (d *Device) narrowHalf(h *BF16Tensor, shape []int, axis, start, length int) (tensor.Storage, error) {
	outer, cols, inner, err := blocks("Narrow", shape, axis)
	if err != nil {
		return nil, err
	}
	if start < 0 || length < 0 || start+length > shape[axis] {
		return nil, shapeErr("Narrow", "[%d, %d+%d) of axis %d of %v", start, start, length, axis, shape)
	}
	out, err := d.EmptyBF16(outer, length*inner)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	width := length * inner
	n := int64(outer) * int64(width)
	if err := d.launch("copy_cols_bf16", d.gridFor(n, 256), 256, h.ptr, out.ptr, outer, width, cols, start*inner, width, 0); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// concatHalf is Concat under Autocast(BFloat16): the result stored in
// bfloat16, as Autocast would store it, each operand copied in one pass,
// a bfloat16 one as it is (copy_cols_bf16), a float32 one rounded
// (copy_cols_f32_bf16), instead of float32 copies of the operands and
// of the result and a rounding pass. GATv2Conv's product of both weights
// (one Concat of two float32 parameters) then reaches the tensor cores
// and its backward pass without another conversion.
func (d *Device) concatHalf(axis int, xs []*tensor.Tensor) (tensor.Storage, error) {
	outer, total, cols, err := concatShape(xs, axis)
	if err != nil {
		return nil, err
	}
	out, err := d.EmptyBF16(outer, total)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	off := 0
	for i, x := range xs {
		if cols[i] == 0 {
			continue
		}
		n := int64(outer) * int64(cols[i])
		var src uintptr
		kernel := "copy_cols_bf16"
		if h, ok := d.halfView(x); ok {
			src = h.ptr
		} else {
			v, err := d.view(x)
			if err != nil {
				out.Free()
				return nil, err
			}
			src, kernel = v.ptr, "copy_cols_f32_bf16"
		}
		if err := d.launch(kernel, d.gridFor(n, 256), 256, src, out.ptr, outer, cols[i], cols[i], 0, total, off); err != nil {
			out.Free()
			return nil, err
		}
		off += cols[i]
	}
	return out, nil
}

// colSumHalf is ColSum of bfloat16 storage (a bias gradient under
// Autocast): col_sum_bf16, float32 sums of the bfloat16 values.
func (d *Device) colSumHalf(h *BF16Tensor) (tensor.Storage, error) {
	out, err := d.Zeros(1, h.Cols)
	if err != nil || h.Len() == 0 {
		return out, err
	}
	gx, gy, chunk := colGrid(&Tensor{Rows: h.Rows, Cols: h.Cols})
	if err := d.launch3("col_sum_bf16", [3]int{gx, gy, 1}, [3]int{128, 1, 1}, h.ptr, out, h.Rows, h.Cols, chunk); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// addHalf is Binary(BinaryAdd, a, b) under Autocast(BFloat16) for a and
// b bfloat16 storage of one length, with tune.BF16Add: the sum in
// float32, stored in bfloat16 (add_bf16, 8 values a thread where the
// length and addresses allow). ok is false otherwise.
func (d *Device) addHalf(a, b *tensor.Tensor) (s tensor.Storage, ok bool, err error) {
	if !tune.BF16Add || a.Len() != b.Len() {
		return nil, false, nil
	}
	ha, okA := d.halfView(a)
	hb, okB := d.halfView(b)
	if !okA || !okB {
		return nil, false, nil
	}
	out, err := d.EmptyBF16(ha.Rows, ha.Cols)
	n := int64(ha.Len())
	if err != nil || n == 0 {
		return out, true, err
	}
	kernel, threads := "add_bf16", n
	if tune.BF16Vec8 && n%8 == 0 && ha.ptr%16 == 0 && hb.ptr%16 == 0 && out.ptr%16 == 0 {
		kernel, threads = "add_bf16_v8", n/8
	}
	if err := d.launch(kernel, d.gridFor(threads, 256), 256, ha.ptr, hb.ptr, out.ptr, n); err != nil {
		out.Free()
		return nil, true, err
	}
	return out, true, nil
}

// biasAddHalf is Binary(BinaryAdd, a, b) under Autocast(BFloat16) for b
// one row broadcast over a's rows (a bias): a read in bfloat16, the sum
// in float32, the result stored in bfloat16 (bias_act_bf16). ok is false
// for other shapes, which Binary runs in float32.
func (d *Device) biasAddHalf(a, b *tensor.Tensor) (s tensor.Storage, ok bool, err error) {
	if a.Dims() == 0 {
		return nil, false, nil
	}
	cols := a.Size(-1)
	if b.Len() != cols || a.Len() == b.Len() {
		return nil, false, nil
	}
	bv, err := d.view(b)
	if err != nil {
		return nil, true, err
	}
	ha, ra, err := d.halfOperand(a)
	if err != nil {
		return nil, true, err
	}
	defer ra()
	out, err := d.EmptyBF16(ha.Rows, ha.Cols)
	if err != nil || out.Len() == 0 {
		return out, true, err
	}
	if err := BiasActBF16(out, ha, &Tensor{buf: bv.buf, ptr: bv.ptr, Rows: 1, Cols: cols}, false, 0, 0); err != nil {
		out.Free()
		return nil, true, err
	}
	return out, true, nil
}
