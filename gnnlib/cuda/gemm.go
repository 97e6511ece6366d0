package cuda

import (
	"fmt"
	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// MatMul returns op(a)·op(b) with the package's tiled GEMM.
func (d *backend) MatMul(a, b *tensor.Tensor, transA, transB bool) (tensor.Storage, error) {
	if d.autocastBF16() {
		return d.matMulHalf(a, b, transA, transB) // halfstore.go
	}
	vs, err := d.views(a, b)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(productDims(vs[0], vs[1], transA, transB))
	if err != nil {
		return nil, err
	}
	if out.Len() == 0 {
		return out, nil
	}
	return out, MatMul(out, vs[0], vs[1], transA, transB)
}

// productDims returns the rows and columns of op(a)·op(b).
func productDims(a, b *Tensor, transA, transB bool) (m, n int) {
	m, n = a.Rows, b.Cols
	if transA {
		m = a.Cols
	}
	if transB {
		n = b.Rows
	}
	return m, n
}

// narrowN is the widest output tune.GEMMv2N sends to the narrow tile, its BN.
const narrowN = 64

// MatMul computes dst = op(a)·op(b), where op transposes when transA or
// transB is set, with the package's tiled kernel (gemm2_*: 128x128 tiles,
// or gemm2n_*: 256x64 for outputs at most 64 wide; 8x8 per thread,
// float32 FMA; no tensor cores). On the H200 this second version passed
// the same tests as the first (gemm_*) and ran every layer shape measured
// 1.03-1.40x faster, and the narrow tile ran the 47/48-wide products
// 1.6-1.8x faster than the 128x128 one (BENCHMARKS.md); the benchmarks
// still compare them (internal/tune).
// When the product's output has few tiles and the inner dimension is long
// — the weight gradient Xᵀ·dY of a GNN layer — K is split across blocks
// that add into dst atomically. The default family, GEMMv2S, sends a
// weight gradient at most 32 wide to gemm_skinny*_tn (matMulSkinny), and
// splits K from 1024 rows on (4096 for the others), so that a Cora-sized
// layer's 1433x2708·2708x64 gets 60 blocks rather than 6.
func MatMul(dst, a, b *Tensor, transA, transB bool) error {
	return matMulWith(tune.GEMM, dst, a, b, transA, transB, false)
}

// MatMulAdd computes dst += op(a)·op(b) in place, the kernels of MatMul
// adding each output tile into dst atomically (their split-K mode) instead
// of storing it.
func MatMulAdd(dst, a, b *Tensor, transA, transB bool) error {
	return matMulWith(tune.GEMM, dst, a, b, transA, transB, true)
}

// MatMulPrefix is nn.PrefixMatMulOps': op(a[:aRows])·op(b) in new
// float32 storage (MatMul on a view of a's first rows). Other storage
// (bfloat16 under Autocast) is refused with an error wrapping
// tensor.ErrNotOnDevice.
func (d *backend) MatMulPrefix(a, b *tensor.Tensor, aRows int, transA, transB bool) (tensor.Storage, error) {
	vs, err := d.prefixViews("MatMulPrefix", nil, a, b, aRows, transA)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(productDims(vs[1], vs[2], transA, transB))
	if err != nil || out.Len() == 0 {
		return out, err
	}
	if err := MatMul(out, vs[1], vs[2], transA, transB); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// MatMulPrefixAdd is nn.PrefixMatMulOps': dst[:m] += op(a[:aRows])·op(b),
// m the product's rows, in place over float32 storage (MatMulAdd on views
// of the row prefixes).
func (d *backend) MatMulPrefixAdd(dst, a, b *tensor.Tensor, aRows int, transA, transB bool) error {
	vs, err := d.prefixViews("MatMulPrefixAdd", dst, a, b, aRows, transA)
	if err != nil {
		return err
	}
	if vs[0].Rows == 0 || vs[0].Cols == 0 {
		return nil
	}
	return MatMulAdd(vs[0], vs[1], vs[2], transA, transB)
}

// prefixViews returns matrix views of dst (nil: none), a's first aRows
// rows and b, all float32 storage of d, dst's cut to the product's rows.
func (d *backend) prefixViews(op string, dst, a, b *tensor.Tensor, aRows int, transA bool) ([3]*Tensor, error) {
	var vs [3]*Tensor
	for i, x := range []*tensor.Tensor{dst, a, b} {
		if x == nil {
			continue
		}
		t, ok := x.Storage().(*Tensor)
		if !ok || t.buf.dev != d.Device || x.DType() != tensor.Float32 {
			return vs, fmt.Errorf("gnnlib/cuda: %s of %v storage: %w", op, x.DType(), tensor.ErrNotOnDevice)
		}
		rows, cols := matrixShape(x.Shape())
		vs[i] = &Tensor{buf: t.buf, ptr: t.ptr, Rows: rows, Cols: cols}
	}
	if aRows < 0 || aRows > vs[1].Rows {
		return vs, shapeErr(op, "%d rows of a %dx%d operand", aRows, vs[1].Rows, vs[1].Cols)
	}
	vs[1].Rows = aRows
	if dst != nil {
		m, _ := productDims(vs[1], vs[2], transA, false)
		if m > vs[0].Rows {
			return vs, shapeErr(op, "a %d-row product into %dx%d", m, vs[0].Rows, vs[0].Cols)
		}
		vs[0].Rows = m
	}
	return vs, nil
}

func matMulWith(kern tune.GEMMKernel, dst, a, b *Tensor, transA, transB, acc bool) error {
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
	form := gemmForm(transA, transB)
	if kern == tune.GEMMTF32x3 && (!d.hasBF16() || transA && n <= skinnyN) {
		// No TF32 tensor cores (before sm_80), or a skinny weight
		// gradient: the default family's kernels.
		kern = tune.GEMMv2S
	}
	// kt is the kernel's k-tile depth: split-K chunks are multiples of it,
	// so every chunk but the last is whole tiles.
	// bm x bn is the block tile, which sets the grid.
	var kernel string
	kt, bm, bn := 8, 128, 128
	// K is split when it is at least splitFrom, into chunks of at least
	// minChunk rows; GEMMv2S splits the Cora-sized K = 2708 too.
	splitFrom, minChunk := 4096, 1024
	switch kern {
	case tune.GEMMTF32x3:
		kernel, kt = "sm80_gemm_tf32x3_"+form, 16
		splitFrom, minChunk = 1024, 256
	case tune.GEMMv1:
		kernel = "gemm_" + form
	case tune.GEMMv2S:
		if transA && n <= skinnyN {
			return d.matMulSkinny(dst, a, b, m, n, k, acc)
		}
		kern, splitFrom, minChunk = tune.GEMMv2N, 1024, 256
		fallthrough
	case tune.GEMMv2, tune.GEMMv2K8, tune.GEMMv2N:
		kernel = "gemm2_" + form
		kt = 16
		switch {
		case kern == tune.GEMMv2K8:
			kernel = "gemm2k8_" + form
			kt = 8
		case kern == tune.GEMMv2N && n <= narrowN:
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
	if want := 2 * d.nsm; tiles < want && k >= splitFrom {
		split = min((want+tiles-1)/tiles, k/minChunk)
	}
	chunk := (k + split - 1) / split
	chunk = (chunk + kt - 1) / kt * kt
	split = (k + chunk - 1) / chunk
	atomic := 0
	switch {
	case acc:
		atomic = 1
	case split > 1:
		atomic = 1
		if err := dst.Fill(0); err != nil {
			return err
		}
	}
	grid := [3]int{(n + bn - 1) / bn, (m + bm - 1) / bm, split}
	if kern == tune.GEMMTF32x3 {
		// float4 loads where an operand's rows are whole float4s.
		lda, ldb := a.Cols, b.Cols
		vecA, vecB := lda%4 == 0 && a.ptr%16 == 0, ldb%4 == 0 && b.ptr%16 == 0
		return d.launch3(kernel, grid, [3]int{256, 1, 1}, a, b, dst, m, n, k, chunk, atomic, vecA, vecB)
	}
	return d.launch3(kernel, grid, [3]int{256, 1, 1}, a, b, dst, m, n, k, chunk, atomic)
}

// skinnyN is the widest output GEMMv2S sends to gemm_skinny*_tn, and
// skinnyTK the rows of B its blocks stage at a time.
const (
	skinnyN  = 32
	skinnyTK = 64
)

// matMulSkinny launches gemm_skinny{8,16,32}_tn for dst[m,n] = aᵀ·b with
// a stored k x m and n <= skinnyN: 32 output rows per block (grid.x) and
// K split into chunks of whole skinnyTK-row steps (grid.y) so that the
// grid has about four blocks per SM, each chunk at least 128 rows; more
// than one chunk adds into dst atomically after zeroing it.
func (d *Device) matMulSkinny(dst, a, b *Tensor, m, n, k int, acc bool) error {
	kernel := "gemm_skinny32_tn"
	switch {
	case n <= 8:
		kernel = "gemm_skinny8_tn"
	case n <= 16:
		kernel = "gemm_skinny16_tn"
	}
	split, chunk := skinnySplit(m, k, d.nsm)
	atomic := 0
	switch {
	case acc:
		atomic = 1
	case split > 1:
		atomic = 1
		if err := dst.Fill(0); err != nil {
			return err
		}
	}
	return d.launch3(kernel, [3]int{(m + 31) / 32, split, 1}, [3]int{256, 1, 1},
		a, b, dst, m, n, k, chunk, atomic)
}

// skinnySplit chooses how many K chunks of how many rows (a multiple of
// skinnyTK) gemm_skinny*_tn's grid has for an m-row output, k long, on
// nsm SMs.
func skinnySplit(m, k, nsm int) (split, chunk int) {
	blocks := (m + 31) / 32
	split = max(1, min((4*nsm+blocks-1)/blocks, k/128))
	chunk = (k + split - 1) / split
	chunk = (chunk + skinnyTK - 1) / skinnyTK * skinnyTK
	if chunk == 0 {
		chunk = skinnyTK
	}
	return max(1, (k+chunk-1)/chunk), chunk
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

// gemmForm names a product's operand layout as the kernels' suffixes do:
// "tn" with A transposed, "nt" with B transposed, else "nn".
func gemmForm(transA, transB bool) string {
	switch {
	case transA:
		return "tn"
	case transB:
		return "nt"
	}
	return "nn"
}
