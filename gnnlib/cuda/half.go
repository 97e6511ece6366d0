package cuda

import (
	"errors"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// ErrNoBF16 is wrapped by the error of a bfloat16 tensor-core op (MatMulBF16,
// SpMMBF16) on a GPU older than compute capability 8.0 (Ampere), which
// has no bfloat16 mma instructions; the conversions work on every GPU.
var ErrNoBF16 = errors.New("needs a GPU of compute capability 8.0 or later (bfloat16 tensor cores)")

// BF16Tensor is a row-major bfloat16 matrix in device memory: two bytes a
// value, half of a Tensor's. ToBF16 makes one from a float32 Tensor
// (rounding to nearest even), Float32 turns it back.
type BF16Tensor struct {
	buf        *buffer
	ptr        uintptr
	Rows, Cols int
}

// Len returns Rows*Cols.
func (t *BF16Tensor) Len() int { return t.Rows * t.Cols }

// Bytes returns the bytes of t's values (2 a value).
func (t *BF16Tensor) Bytes() int64 { return int64(t.Len()) * 2 }

// String describes t without copying it back.
func (t *BF16Tensor) String() string { return fmt.Sprintf("cuda.BF16Tensor(%dx%d)", t.Rows, t.Cols) }

// Free returns t's memory to the device's cache now.
func (t *BF16Tensor) Free() {
	if t != nil && t.buf != nil {
		t.buf.release()
	}
}

// EmptyBF16 allocates an uninitialised rows x cols bfloat16 matrix.
func (d *Device) EmptyBF16(rows, cols int) (*BF16Tensor, error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("%w: EmptyBF16(%d, %d)", ErrShape, rows, cols)
	}
	b, err := d.newBuffer(int64(rows) * int64(cols) * 2)
	if err != nil {
		return nil, err
	}
	return &BF16Tensor{buf: b, ptr: b.ptr, Rows: rows, Cols: cols}, nil
}

// BF16FromHost copies rows x cols bfloat16 bit patterns to the device.
func (d *Device) BF16FromHost(data []uint16, rows, cols int) (*BF16Tensor, error) {
	if rows < 0 || cols < 0 || len(data) != rows*cols {
		return nil, fmt.Errorf("%w: BF16FromHost: %d values for %dx%d", ErrShape, len(data), rows, cols)
	}
	t, err := d.EmptyBF16(rows, cols)
	if err != nil || len(data) == 0 {
		return t, err
	}
	if err := d.upload(t.ptr, unsafe.Pointer(unsafe.SliceData(data)), int64(len(data))*2); err != nil {
		t.Free()
		return nil, err
	}
	return t, nil
}

// Host copies t's bit patterns back.
func (t *BF16Tensor) Host() ([]uint16, error) {
	out := make([]uint16, t.Len())
	if len(out) == 0 {
		return out, nil
	}
	err := t.buf.dev.do(func(drv driver) error {
		return drv.dtoh(unsafe.Pointer(unsafe.SliceData(out)), t.ptr, int64(len(out))*2)
	})
	return out, err
}

// ToBF16 returns x rounded to bfloat16 (to nearest, ties to even, as
// gnnlib/internal/half) in a new BF16Tensor on x's device.
func ToBF16(x *Tensor) (*BF16Tensor, error) {
	d := x.buf.dev
	y, err := d.EmptyBF16(x.Rows, x.Cols)
	if err != nil || x.Len() == 0 {
		return y, err
	}
	n := int64(x.Len())
	kernel, work := "f32_to_bf16", n
	if tune.BF16Vec8 && n%8 == 0 && x.ptr%16 == 0 && y.ptr%16 == 0 {
		kernel, work = "f32_to_bf16_v8", n/8
	}
	if err := d.launch(kernel, d.gridFor(work, 256), 256, x, y.ptr, n); err != nil {
		y.Free()
		return nil, err
	}
	return y, nil
}

// Float32 returns t's values as a new float32 Tensor (exact).
func (t *BF16Tensor) Float32() (*Tensor, error) {
	d := t.buf.dev
	y, err := d.Empty(t.Rows, t.Cols)
	if err != nil || t.Len() == 0 {
		return y, err
	}
	n := int64(t.Len())
	if err := d.launch("bf16_to_f32", d.gridFor(n, 256), 256, t.ptr, y, n); err != nil {
		y.Free()
		return nil, err
	}
	return y, nil
}

// RoundHalf rounds the float32 values of x in place to bfloat16 (fp16
// false) or float16 values, to nearest, ties to even.
func RoundHalf(x *Tensor, fp16 bool) error {
	n := int64(x.Len())
	if n == 0 {
		return nil
	}
	d := x.buf.dev
	return d.launch("round_half", d.gridFor(n, 256), 256, x, n, fp16)
}

// RoundHalf implements tensor.HalfBackend: Autocast's rounding on store,
// run on the device.
func (d *backend) RoundHalf(s tensor.Storage, n int, dt tensor.DType) error {
	x, ok := s.(*Tensor)
	if !ok || x.buf.dev != d.Device {
		return fmt.Errorf("gnnlib/cuda: RoundHalf: storage %T is not on %v", s, d.Device)
	}
	if n > x.Len() {
		return shapeErr("RoundHalf", "%d values of a %dx%d tensor", n, x.Rows, x.Cols)
	}
	switch dt {
	case tensor.BFloat16, tensor.Float16:
	default:
		return fmt.Errorf("gnnlib/cuda: RoundHalf(%v): %w", dt, tensor.ErrDType)
	}
	return RoundHalf(&Tensor{buf: x.buf, ptr: x.ptr, Rows: 1, Cols: n}, dt == tensor.Float16)
}

// gemmBF16Split is the split-K rule of the float32 GEMM (matMulWith) for
// the 128x128 tile: few output tiles over a long inner dimension.
func (d *Device) gemmBF16Split(m, n, k int) (split, chunk int) {
	const bk = 32
	tiles := ((m + 127) / 128) * ((n + 127) / 128)
	split = 1
	if want := 2 * d.nsm; tiles < want && k >= 4096 {
		split = min((want+tiles-1)/tiles, k/1024)
	}
	chunk = (k + split - 1) / split
	chunk = (chunk + bk - 1) / bk * bk
	split = (k + chunk - 1) / chunk
	return split, chunk
}

// MatMulBF16 computes dst = op(a)·op(b) on the tensor cores (mma.sync,
// sm_80 and later; wgmma on sm_90 where it takes the product):
// bfloat16 operands, float32 sums, dst float32. op
// transposes when transA or transB is set (not both). A product with few
// output tiles and a long inner dimension (a weight gradient Xᵀ·dY) splits
// k across blocks that add into dst atomically.
func MatMulBF16(dst *Tensor, a, b *BF16Tensor, transA, transB bool) error {
	return gemmBF16(dst.buf, dst.ptr, dst.Rows, dst.Cols, false, a, b, transA, transB)
}

// MatMulBF16Out is MatMulBF16 with a bfloat16 result (each float32 sum
// rounded once as it is stored): half the bytes written, for a product
// whose output the next op reads in bfloat16 anyway. When it splits k,
// the partial sums add up in a float32 scratch rounded at the end.
func MatMulBF16Out(dst, a, b *BF16Tensor, transA, transB bool) error {
	return gemmBF16(dst.buf, dst.ptr, dst.Rows, dst.Cols, true, a, b, transA, transB)
}

func gemmBF16(dbuf *buffer, dptr uintptr, rows, cols int, outBF16 bool, a, b *BF16Tensor, transA, transB bool) error {
	d := a.buf.dev
	if b.buf.dev != d || dbuf.dev != d {
		return fmt.Errorf("gnnlib/cuda: MatMulBF16: operands on different devices")
	}
	m, k := a.Rows, a.Cols
	if transA {
		m, k = k, m
	}
	k2, n := b.Rows, b.Cols
	if transB {
		k2, n = n, k2
	}
	if k != k2 || rows != m || cols != n {
		return shapeErr("MatMulBF16", "%dx%d (T=%v) · %dx%d (T=%v) into %dx%d", a.Rows, a.Cols, transA, b.Rows, b.Cols, transB, rows, cols)
	}
	if transA && transB {
		return shapeErr("MatMulBF16", "both operands transposed is not supported")
	}
	if m == 0 || n == 0 {
		return nil
	}
	lda, ldb := k, n
	if transA {
		lda = m
	}
	if transB {
		ldb = k
	}
	p := d.gemmBF16Choose(m, n, k, transA, transB, a.ptr, lda, b.ptr, ldb)
	if outBF16 && (p.split > 1 || p.atomic || k == 0) {
		// Split-K partial sums add up in a float32 scratch, rounded to
		// bfloat16 once at the end: one block walking all of a long k
		// (Xᵀ·dY) ran 22-40x slower than the float32 GEMM on the H100.
		tmp, err := d.Empty(m, n)
		if err != nil {
			return err
		}
		defer tmp.Free()
		if err := gemmBF16(tmp.buf, tmp.ptr, m, n, false, a, b, transA, transB); err != nil {
			return err
		}
		cnt := int64(m) * int64(n)
		return d.launch("f32_to_bf16", d.gridFor(cnt, 256), 256, tmp, dptr, cnt)
	}
	if k == 0 || p.split > 1 || p.atomic {
		if err := (&Tensor{buf: dbuf, ptr: dptr, Rows: m, Cols: n}).Fill(0); err != nil || k == 0 {
			return err
		}
	}
	if p.wg {
		bptr := b.ptr
		if p.transposeB {
			// B (k x n) as the kernel takes it, n x k.
			bt, err := d.EmptyBF16(n, k)
			if err != nil {
				return err
			}
			defer bt.Free()
			if err := d.launch3("sm90_transpose_bf16", [3]int{(n + 31) / 32, (k + 31) / 32, 1}, [3]int{32, 8, 1}, b.ptr, bt.ptr, k, n); err != nil {
				return err
			}
			bptr = bt.ptr
		}
		// The tn kernel's last argument is its k-rows a block, the others'
		// the output type.
		var last any = outBF16
		if p.atomic {
			last = p.chunk
		}
		return d.launchShared(p.kernel, p.grid, [3]int{256, 1, 1}, p.shared, a.ptr, bptr, dptr, m, n, k, last)
	}
	if p.pipe {
		vecC := dptr%16 == 0 && n%4 == 0
		if outBF16 {
			vecC = dptr%16 == 0 && n%8 == 0
		}
		bptr, ldbArg := b.ptr, 0
		if p.padB > 0 {
			// B (k x n, n odd) copied with rows padded to padB.
			pb, err := d.EmptyBF16(k, p.padB)
			if err != nil {
				return err
			}
			defer pb.Free()
			cnt := int64(k) * int64(p.padB)
			if err := d.launch("sm80_pad_bf16", d.gridFor(cnt, 256), 256, b.ptr, pb.ptr, k, n, ldb, p.padB); err != nil {
				return err
			}
			bptr, ldbArg = pb.ptr, p.padB
		}
		return d.launchShared(p.kernel, p.grid, [3]int{256, 1, 1}, p.shared,
			a.ptr, bptr, dptr, m, n, k, p.chunk, p.split, p.split > 1, outBF16, p.vA, p.vB, vecC, ldbArg)
	}
	vecA := lda%8 == 0 && a.ptr%16 == 0
	vecB := ldb%8 == 0 && b.ptr%16 == 0
	return d.launch3(p.kernel, p.grid, [3]int{256, 1, 1},
		a.ptr, b.ptr, dptr, m, n, k, transA, transB, p.chunk, p.split > 1, outBF16, vecA, vecB)
}

// gemmBF16Launch is the kernel, grid and k split gemmBF16 chose.
type gemmBF16Launch struct {
	kernel       string
	pipe         bool // sm80_gemm_bf16[psr]_*, with vA and vB
	grid         [3]int
	split, chunk int
	vA, vB       int
	// padB > 0: the pipelined kernel reads a copy of B (nn, n odd) whose
	// rows are padded to padB halves.
	padB int
	// shared is the dynamic shared memory a block (GEMMBF16Big, GEMMBF16WG).
	shared int
	// wg: sm90_gemm_bf16_wg_* (GEMMBF16WG), with B copied transposed
	// first when transposeB (an nn product for the nt kernel); atomic:
	// the kernel adds into a float32 C that gemmBF16 zeroes first
	// (sm90_gemm_bf16_wg_tn, split or not).
	wg, transposeB, atomic bool
}

// padBMax is the most values of an nn product's B (k x n, n odd) that
// gemmBF16 copies into padded rows for the pipelined kernel: a layer's
// weight, not a tall operand.
const padBMax = 1 << 22

// Tiles of the pipelined kernels (kernels/gemm_bf16.cu: GP_BM, GP_BK, the
// two BN) and the blocks each SM holds (their __launch_bounds__), which
// the persistent grid must not exceed.
const (
	gpBM, gpBK       = 128, 16
	gpNarrow         = 64
	gpWide           = 128
	gpBlocksNarrowSM = 3
	gpBlocksWideSM   = 2
	// gpResWide and gpResNarrow are the most k-rows of B the resident
	// kernels (sm80_gemm_bf16r_*, KR) keep, at the two widths.
	gpResWide, gpResNarrow = 128, 224
)

// cpWidth returns the halves a cp.async may copy at once from rows of
// leading dimension ld at base ptr: 8, 4 or 2 (16, 8 or 4 bytes, aligned),
// or 0 when the rows are only 2-byte aligned.
func cpWidth(ld int, ptr uintptr) int {
	for _, v := range []int{8, 4, 2} {
		if ld%v == 0 && ptr%uintptr(2*v) == 0 {
			return v
		}
	}
	return 0
}

// gemmBF16Choose picks the kernel for an m x n x k product: under
// tune.GEMMBF16Pipe, GEMMBF16PipeSW or GEMMBF16PipeRes the pipelined one
// unless an operand's rows are only 2-byte aligned (an odd leading
// dimension) — but for an nn product's small B, which it copies into
// padded rows (padB) — else sm80_gemm_bf16. Under GEMMBF16WG and
// GEMMBF16WGDirect, and under GEMMBF16Auto on compute capability 9.0 for
// outputs a multiple of 8 wide, gemmBF16ChooseWG's wgmma kernel where it
// takes the product.
func (d *Device) gemmBF16Choose(m, n, k int, transA, transB bool, pa uintptr, lda int, pb uintptr, ldb int) gemmBF16Launch {
	form := gemmForm(transA, transB)
	kind := tune.GEMMBF16
	switch {
	case kind == tune.GEMMBF16WG || kind == tune.GEMMBF16WGDirect:
		if p, ok := d.gemmBF16ChooseWG(m, n, k, transA, transB, pa, lda, pb, ldb, kind == tune.GEMMBF16WGDirect); ok {
			return p
		}
		kind = tune.GEMMBF16Auto
	case kind == tune.GEMMBF16Auto && d.hasWG() && (transA || n%8 == 0):
		// The wgmma kernels where they take the product (an H100,
		// 2026-12-08: 1.08-1.60x the kernels below at the GNN layers'
		// shapes; an nn or nt product with n not a multiple of 8, the
		// products-sized classifier's 47, ran 0.92x with a float32 output).
		if p, ok := d.gemmBF16ChooseWG(m, n, k, transA, transB, pa, lda, pb, ldb, false); ok {
			return p
		}
	}
	if kind == tune.GEMMBF16Auto {
		kind = tune.GEMMBF16Pipe
		if k >= gemmBF16BigK {
			kind = tune.GEMMBF16Big
		}
	}
	if kind == tune.GEMMBF16Big || kind == tune.GEMMBF16BigStream {
		if p, ok := d.gemmBF16ChooseBig(m, n, k, transA, transB, pa, lda, pb, ldb, kind == tune.GEMMBF16Big); ok {
			return p
		}
		kind = tune.GEMMBF16Pipe
	}
	switch kind {
	case tune.GEMMBF16Pipe, tune.GEMMBF16PipeSW, tune.GEMMBF16PipeRes:
		prefix := "sm80_gemm_bf16p_"
		if kind == tune.GEMMBF16PipeSW {
			prefix = "sm80_gemm_bf16s_"
		}
		vA, vB := cpWidth(lda, pa), cpWidth(ldb, pb)
		padB := 0
		if vB == 0 && !transA && !transB && k*n <= padBMax {
			padB = (n + 7) / 8 * 8
			vB = 8
		}
		if vA > 0 && vB > 0 {
			bn, per, kr := gpWide, gpBlocksWideSM, gpResWide
			if n <= gpNarrow {
				bn, per, kr = gpNarrow, gpBlocksNarrowSM, gpResNarrow
			}
			split, chunk, grid := gemmBF16PipeGrid(m, n, k, bn, per*d.nsm)
			if nt := (n + bn - 1) / bn; kind == tune.GEMMBF16PipeRes && !transA && split == 1 && chunk <= kr && nt <= per*d.nsm {
				// Every block keeps one n tile: a whole number of
				// blocks per n tile when they take several items.
				blocks := per * d.nsm
				blocks -= blocks % nt
				tiles := ((m + gpBM - 1) / gpBM) * nt
				return gemmBF16Launch{kernel: fmt.Sprintf("sm80_gemm_bf16r_%s_%d", form, bn), pipe: true,
					grid: [3]int{min(tiles, blocks), 1, 1}, split: 1, chunk: chunk, vA: vA, vB: vB, padB: padB}
			}
			return gemmBF16Launch{kernel: fmt.Sprintf("%s%s_%d", prefix, form, bn), pipe: true,
				grid: [3]int{grid, 1, 1}, split: split, chunk: chunk, vA: vA, vB: vB, padB: padB}
		}
	}
	split, chunk := d.gemmBF16Split(m, n, k)
	return gemmBF16Launch{kernel: "sm80_gemm_bf16", grid: [3]int{(n + 127) / 128, (m + 127) / 128, split},
		split: split, chunk: chunk}
}

// Tiles of sm90_gemm_bf16_wg_nt (kernels/gemm_wg.cu: WG_BM, WG_BN) and
// its dynamic shared memory: WG_STAGES stages of a 128 x 64 tile of A and
// one of B, and 1024 bytes to align the first to the 128-byte swizzle's
// 1024-byte groups.
const (
	wgBM, wgBN, wgBK = 128, 128, 64
	wgShared         = 3*2*128*64*2 + 1024
	// wgBlocksSM is the blocks an SM holds (their __launch_bounds__, and
	// two wgShared fit the H100's 228 KB), which the tn kernel's K split
	// fills.
	wgBlocksSM = 2
	// maxGridY is the most blocks a grid's y dimension may have: the wg
	// kernels' tile rows (products up to 8.4M rows).
	maxGridY = 65535
)

// hasWG reports whether d is a GPU of compute capability 9.0 whose
// driver loaded sm90a.ptx (sm90aLoader).
func (d *Device) hasWG() bool {
	if l, ok := d.drv.(sm90aLoader); ok && !l.sm90aLoaded() {
		return false
	}
	return d.computeCapability() == 90
}

// gemmBF16ChooseWG is GEMMBF16WG's choice on a GPU of compute capability
// 9.0, for operands 16-byte aligned in rows of exactly their width:
// sm90_gemm_bf16_wg_nt for an nt product, or an nn one whose B (at most
// padBMax values) gemmBF16 transposes first (transposeB), K a
// multiple of 8 — with direct, an nn product with n a multiple of 8 runs
// sm90_gemm_bf16_wg_nn instead, B as it is; sm90_gemm_bf16_wg_tn for a tn
// product with m and n multiples of 8, K split over enough blocks to fill
// two an SM (atomic); else false (and for more than maxGridY tile rows).
func (d *Device) gemmBF16ChooseWG(m, n, k int, transA, transB bool, pa uintptr, lda int, pb uintptr, ldb int, direct bool) (gemmBF16Launch, bool) {
	grid := [3]int{(n + wgBN - 1) / wgBN, (m + wgBM - 1) / wgBM, 1}
	switch {
	case !d.hasWG() || k == 0 || pa%16 != 0 || pb%16 != 0 || transA && transB || grid[1] > maxGridY:
		return gemmBF16Launch{}, false
	case transA:
		if m%8 != 0 || n%8 != 0 || lda != m || ldb != n {
			return gemmBF16Launch{}, false
		}
		steps := (k + wgBK - 1) / wgBK
		split := max(1, min(steps, wgBlocksSM*d.nsm/(grid[0]*grid[1])))
		chunk := (steps + split - 1) / split * wgBK
		grid[2] = (k + chunk - 1) / chunk
		return gemmBF16Launch{kernel: "sm90_gemm_bf16_wg_tn", wg: true, atomic: true, grid: grid, split: grid[2], chunk: chunk, shared: wgShared}, true
	case k%8 != 0 || lda != k:
		return gemmBF16Launch{}, false
	case direct && !transB && n%8 == 0 && ldb == n:
		return gemmBF16Launch{kernel: "sm90_gemm_bf16_wg_nn", wg: true, grid: grid, split: 1, shared: wgShared}, true
	case !transB && (k*n > padBMax || ldb != n):
		return gemmBF16Launch{}, false
	case transB && ldb != k:
		return gemmBF16Launch{}, false
	}
	return gemmBF16Launch{kernel: "sm90_gemm_bf16_wg_nt", wg: true, transposeB: !transB, grid: grid, split: 1, shared: wgShared}, true
}

// gemmBF16BigK is the shortest inner dimension for which GEMMBF16Auto
// runs the large-tile kernels.
const gemmBF16BigK = 256

// gpBig describes the dynamic-shared-memory kernels of GEMMBF16Big
// (kernels/gemm_bf16.cu, GEMM_BF16D) at each tile width: the blocks an SM
// holds (their __launch_bounds__), the k-step, and the dynamic shared
// memory a block of the streaming (sm80_gemm_bf16d_*) and the B-resident
// (sm80_gemm_bf16dr_*, up to gpBigKR k-rows of B) kernel; the launch
// passes these sizes, which the kernels' plans (gp_cfg) fit.
var gpBig = []struct {
	bn, per, bk, smem, smemRes int
}{
	{256, 1, 32, 163840, 204800},
	{128, 2, 32, 98304, 102400},
	{64, 3, 32, 73728, 73728},
}

const gpBigKR = 256

// gemmBF16ChooseBig is gemmBF16Choose under GEMMBF16Big (resident) and
// GEMMBF16BigStream: the widest tile not much wider than n (256 above 128
// columns, 128 above 64, else 64), B resident (if resident) when the
// product is nn or nt with k at most gpBigKR, so that
// a block keeps its n tile of B for all its output tiles, else both
// operands streamed (split-K as the pipelined kernel splits it). ok is
// false where an operand's rows are only 2-byte aligned (but for the
// padded copy of an nn product's small B, as gemmBF16Choose makes) or the
// device's shared memory does not hold the blocks an SM should (a GPU
// without sharedLimiter, or less than the H100's 227 KB a block for the
// resident kernels at 256 and the narrower ones at all).
func (d *Device) gemmBF16ChooseBig(m, n, k int, transA, transB bool, pa uintptr, lda int, pb uintptr, ldb int, resident bool) (gemmBF16Launch, bool) {
	vA, vB := cpWidth(lda, pa), cpWidth(ldb, pb)
	padB := 0
	if vB == 0 && !transA && !transB && k*n <= padBMax {
		padB = (n + 7) / 8 * 8
		vB = 8
	}
	if vA == 0 || vB == 0 {
		return gemmBF16Launch{}, false
	}
	c := gpBig[0]
	for _, w := range gpBig[1:] {
		if n <= w.bn {
			c = w
		}
	}
	// The SM's shared memory is the block's opt-in limit and 1 KB (A100,
	// H100); each block reserves 1 KB of it.
	fits := func(b int) bool { return d.smem > 0 && c.per*(b+1024) <= d.smem+1024 }
	form := gemmForm(transA, transB)
	blocks := c.per * d.nsm
	split, chunk, grid := gemmBF16PipeGridK(m, n, k, c.bn, c.bk, blocks)
	if nt := (n + c.bn - 1) / c.bn; resident && !transA && split == 1 && chunk <= gpBigKR && nt <= blocks && fits(c.smemRes) {
		// Every block keeps one n tile: a whole number of blocks per n
		// tile when they take several items.
		blocks -= blocks % nt
		tiles := ((m + gpBM - 1) / gpBM) * nt
		return gemmBF16Launch{kernel: fmt.Sprintf("sm80_gemm_bf16dr_%s_%d", form, c.bn), pipe: true,
			grid: [3]int{min(tiles, blocks), 1, 1}, split: 1, chunk: chunk, vA: vA, vB: vB, padB: padB, shared: c.smemRes}, true
	}
	if !fits(c.smem) {
		return gemmBF16Launch{}, false
	}
	return gemmBF16Launch{kernel: fmt.Sprintf("sm80_gemm_bf16d_%s_%d", form, c.bn), pipe: true,
		grid: [3]int{grid, 1, 1}, split: split, chunk: chunk, vA: vA, vB: vB, padB: padB, shared: c.smem}, true
}

// gemmBF16PipeGrid is the work split of the pipelined kernel on a
// persistent grid of at most blocks blocks: output tiles of gpBM x bn
// and, when there are fewer tiles than blocks and k is at least 1024 (a
// weight gradient Xᵀ·dY), k chunks (multiples of gpBK, at least 256
// long) so that every block gets about one item.
func gemmBF16PipeGrid(m, n, k, bn, blocks int) (split, chunk, grid int) {
	return gemmBF16PipeGridK(m, n, k, bn, gpBK, blocks)
}

// gemmBF16PipeGridK is gemmBF16PipeGrid for k-steps of bk.
func gemmBF16PipeGridK(m, n, k, bn, bk, blocks int) (split, chunk, grid int) {
	tiles := ((m + gpBM - 1) / gpBM) * ((n + bn - 1) / bn)
	split = 1
	if tiles < blocks && k >= 1024 {
		split = max(1, min((blocks+tiles-1)/tiles, k/256))
	}
	chunk = (k + split - 1) / split
	chunk = max(bk, (chunk+bk-1)/bk*bk)
	split = max(1, (k+chunk-1)/chunk)
	return split, chunk, min(tiles*split, blocks)
}

// SpMMBF16 computes dst[v,:] = Σ_{u→v} w_uv · x[u,:] over g with x in
// bfloat16 and float32 sums, dst float32: the SpMM of a layer whose
// features are stored in bfloat16 (sm_80 and later).
func SpMMBF16(dst *Tensor, g *Graph, x *BF16Tensor) error {
	return spmmBF16(dst.buf, dst.ptr, dst.Rows, dst.Cols, false, g, false, x)
}

// SpMMBF16Out is SpMMBF16 with a bfloat16 result.
func SpMMBF16Out(dst *BF16Tensor, g *Graph, x *BF16Tensor) error {
	return spmmBF16(dst.buf, dst.ptr, dst.Rows, dst.Cols, true, g, false, x)
}

// SpMMBF16T is SpMMBF16 of the transpose, dst[u,:] = Σ_{u→v} w_uv · x[v,:],
// over the cached transposed CSR: the backward pass of SpMMBF16, a
// bfloat16 gradient in, float32 sums and result.
func SpMMBF16T(dst *Tensor, g *Graph, x *BF16Tensor) error {
	return spmmBF16(dst.buf, dst.ptr, dst.Rows, dst.Cols, false, g, true, x)
}

// SpMMBF16TOut is SpMMBF16T with a bfloat16 result.
func SpMMBF16TOut(dst *BF16Tensor, g *Graph, x *BF16Tensor) error {
	return spmmBF16(dst.buf, dst.ptr, dst.Rows, dst.Cols, true, g, true, x)
}

func spmmBF16(dbuf *buffer, dptr uintptr, rows, cols int, outBF16 bool, g *Graph, transpose bool, x *BF16Tensor) error {
	d := x.buf.dev
	if dbuf.dev != d || g.dev != d {
		return fmt.Errorf("gnnlib/cuda: SpMMBF16: operands on different devices")
	}
	n, nsrc, indptr, idx, w, hv := g.n, g.nsrc, g.indptr, g.idx, g.w, g.hv
	if transpose {
		n, nsrc, indptr, idx, w, hv = g.nsrc, g.n, g.tptr, g.tidx, g.tw, g.thv
	}
	f := x.Cols
	if x.Rows != nsrc || rows != n || cols != f {
		return shapeErr("SpMMBF16", "graph %d<-%d nodes (transposed %v), x %dx%d, dst %dx%d", n, nsrc, transpose, x.Rows, x.Cols, rows, cols)
	}
	if n == 0 || f == 0 {
		return nil
	}
	tile := 0
	if hv.n > 0 && tune.BF16SplitHeavy {
		tile = heavyTile
	}
	const block = 256
	vec := 0 // columns a lane loads at once: 8, 4 or (warp kernel) 1
	switch {
	case f%8 == 0 && x.ptr%16 == 0 && dptr%16 == 0:
		vec = 8
	case f%4 == 0 && x.ptr%8 == 0 && dptr%16 == 0 && tune.BF16SpMMOnePass:
		vec = 4
	}
	var err error
	if vec > 0 {
		// A lane group per row: under BF16SpMMOnePass as many lanes as
		// the row has vectors, rounded up to a power of two (at most a
		// warp), so that one pass over the row's edges covers its width;
		// before, F/8 rounded down (a 48-wide row: 4 lanes, two passes).
		grp := min(32, 1<<(bits.Len(uint(f/8))-1))
		if tune.BF16SpMMOnePass {
			grp = min(32, 1<<bits.Len(uint(f/vec-1)))
		}
		grid := d.gridFor(int64(n)*int64(grp), block)
		err = d.launch(fmt.Sprintf("sm80_spmm_bf16_vec%d", vec), grid, block, indptr, idx, ptrOf(w), x.ptr, dptr, n, f, grp, outBF16, tile)
	} else {
		grid := d.gridFor(int64(n)*32, block)
		err = d.launch("sm80_spmm_bf16_warp", grid, block, indptr, idx, ptrOf(w), x.ptr, dptr, n, f, outBF16, tile)
	}
	if err != nil || tile == 0 {
		return err
	}
	// The heavy rows: float32 partial sums of each edge tile added into a
	// scratch row per heavy row, then stored into dst.
	acc, err := d.Empty(hv.n, f)
	if err != nil {
		return err
	}
	defer acc.Free()
	if err := acc.Fill(0); err != nil {
		return err
	}
	threads := min(256, (f+31)/32*32)
	if vec > 0 {
		threads = min(256, (f/vec+31)/32*32)
	}
	if err := d.launch("sm80_spmm_bf16_heavy", hv.ntiles, threads, indptr, idx, ptrOf(w), x.ptr, acc, hv.heavy, hv.tiles, hv.n, f, heavyTile, vec); err != nil {
		return err
	}
	cnt := int64(hv.n) * int64(f)
	return d.launch("sm80_spmm_bf16_heavy_store", d.gridFor(cnt, 256), 256, acc, hv.heavy, dptr, hv.n, f, outBF16)
}

// AdamBF16 is one step of gnnlib/nn's Adam (AdamW when decoupled) for
// bfloat16 training: the gradient g is bfloat16, the parameter p and the
// moments m and v are float32 master copies updated in place, and p16
// receives p rounded to bfloat16 for the next forward pass, in the same
// pass. step = lr/(1-β₁ᵗ) and sqrtC2 = √(1-β₂ᵗ), as Adam.Step computes
// them; shrink = 1 - lr·weightDecay.
func AdamBF16(p *Tensor, g *BF16Tensor, m, v *Tensor, p16 *BF16Tensor, step, beta1, beta2, eps, sqrtC2, weightDecay, shrink float32, decoupled bool) error {
	d := p.buf.dev
	n := p.Len()
	for _, l := range []int{g.Len(), m.Len(), v.Len(), p16.Len()} {
		if l != n {
			return shapeErr("AdamBF16", "parameter of %d values, gradient, state or copy of %d", n, l)
		}
	}
	for _, b := range []*buffer{g.buf, m.buf, v.buf, p16.buf} {
		if b.dev != d {
			return fmt.Errorf("gnnlib/cuda: AdamBF16: operands on different devices")
		}
	}
	if n == 0 {
		return nil
	}
	return d.launch("adam_wd_bf16", d.gridFor(int64(n), 256), 256, p, g.ptr, m, v, p16.ptr, int64(n),
		step, beta1, beta2, eps, sqrtC2, weightDecay, shrink, decoupled)
}

// BiasActBF16 is BiasAct over bfloat16 storage: y = dropout(act(x + b))
// with x and y bfloat16 (in place allowed), b float32 (nil: none), float32
// arithmetic and BiasAct's dropout mask for the same seed.
func BiasActBF16(y, x *BF16Tensor, b *Tensor, relu bool, p float32, seed uint64) error {
	d := x.buf.dev
	if y.buf.dev != d || (b != nil && b.buf.dev != d) {
		return fmt.Errorf("gnnlib/cuda: BiasActBF16: operands on different devices")
	}
	if y.Len() != x.Len() || (b != nil && b.Len() != x.Cols) {
		return shapeErr("BiasActBF16", "x %dx%d, y %dx%d", x.Rows, x.Cols, y.Rows, y.Cols)
	}
	n := int64(x.Len())
	if n == 0 {
		return nil
	}
	if tune.BF16Vec8 && x.Cols%8 == 0 && x.ptr%16 == 0 && y.ptr%16 == 0 {
		return d.launch("bias_act_bf16_v8", d.gridFor(n/8, 256), 256, x.ptr, b, y.ptr, n, x.Cols, relu, p, seed)
	}
	return d.launch("bias_act_bf16", d.gridFor(n, 256), 256, x.ptr, b, y.ptr, n, x.Cols, relu, p, seed)
}

// ActBackwardBF16 is ActBackward over bfloat16 storage: dx = g masked by
// BiasActBF16's output y (zero where y is zero, g/(1-p) elsewhere).
func ActBackwardBF16(dx, y, g *BF16Tensor, relu bool, p float32) error {
	d := y.buf.dev
	if dx.buf.dev != d || g.buf.dev != d {
		return fmt.Errorf("gnnlib/cuda: ActBackwardBF16: operands on different devices")
	}
	n := int64(y.Len())
	if dx.Len() != y.Len() || g.Len() != y.Len() {
		return shapeErr("ActBackwardBF16", "lengths %d, %d, %d", dx.Len(), y.Len(), g.Len())
	}
	if n == 0 {
		return nil
	}
	return d.launch("act_backward_bf16", d.gridFor(n, 256), 256, y.ptr, g.ptr, dx.ptr, n, relu, p)
}

// ColSumBF16 is ColSum of a bfloat16 matrix: dst[j] = Σ_i x[i,j], float32
// sums of the bfloat16 values (a bias gradient of bfloat16 training).
func ColSumBF16(dst *Tensor, x *BF16Tensor) error {
	d := x.buf.dev
	if dst.buf.dev != d {
		return fmt.Errorf("gnnlib/cuda: ColSumBF16: operands on different devices")
	}
	if dst.Len() != x.Cols {
		return shapeErr("ColSumBF16", "x %dx%d into %d", x.Rows, x.Cols, dst.Len())
	}
	if err := dst.Fill(0); err != nil || x.Len() == 0 {
		return err
	}
	gx, gy, chunk := colGrid(&Tensor{Rows: x.Rows, Cols: x.Cols})
	return d.launch3("col_sum_bf16", [3]int{gx, gy, 1}, [3]int{128, 1, 1}, x.ptr, dst, x.Rows, x.Cols, chunk)
}
