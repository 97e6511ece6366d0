package cuda

import (
	"fmt"
	"unsafe"
)

// Int8Matrix is a row-major int8 matrix in device memory (quantised
// activations or weights).
type Int8Matrix struct {
	buf        *buffer
	Rows, Cols int
}

// Int32Matrix is a row-major int32 matrix in device memory (the
// accumulators of the INT8 kernels).
type Int32Matrix struct {
	buf        *buffer
	Rows, Cols int
}

// Int8FromHost copies a rows x cols int8 matrix to the device.
func (d *Device) Int8FromHost(data []int8, rows, cols int) (*Int8Matrix, error) {
	if rows < 0 || cols < 0 || len(data) != rows*cols {
		return nil, fmt.Errorf("%w: Int8FromHost: %d values for %dx%d", ErrShape, len(data), rows, cols)
	}
	b, err := d.newBuffer(int64(len(data)) + 4)
	if err != nil {
		return nil, err
	}
	if len(data) > 0 {
		if err := d.upload(b.ptr, unsafe.Pointer(unsafe.SliceData(data)), int64(len(data))); err != nil {
			b.release()
			return nil, err
		}
	}
	return &Int8Matrix{buf: b, Rows: rows, Cols: cols}, nil
}

// EmptyInt32 allocates an uninitialised rows x cols int32 matrix.
func (d *Device) EmptyInt32(rows, cols int) (*Int32Matrix, error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("%w: EmptyInt32(%d, %d)", ErrShape, rows, cols)
	}
	b, err := d.newBuffer(int64(rows)*int64(cols)*4 + 4)
	if err != nil {
		return nil, err
	}
	return &Int32Matrix{buf: b, Rows: rows, Cols: cols}, nil
}

// Host copies m back into a new slice.
func (m *Int32Matrix) Host() ([]int32, error) {
	out := make([]int32, m.Rows*m.Cols)
	if len(out) == 0 {
		return out, nil
	}
	err := m.buf.dev.do(func(drv driver) error {
		return drv.dtoh(unsafe.Pointer(unsafe.SliceData(out)), m.buf.ptr, int64(len(out))*4)
	})
	return out, err
}

// Free returns m's memory to the device's cache.
func (m *Int8Matrix) Free() {
	if m != nil && m.buf != nil {
		m.buf.release()
	}
}

// Free returns m's memory to the device's cache.
func (m *Int32Matrix) Free() {
	if m != nil && m.buf != nil {
		m.buf.release()
	}
}

// MatMulInt8 computes dst = a·bᵀ with int8 operands and int32
// accumulation (__dp4a): a is M x K (activations), b is N x K (a weight
// stored [out, in], as gnnlib/quant keeps it), dst M x N. Sums are exact
// while they fit in int32 (K below 2^17 for any int8 values).
func MatMulInt8(dst *Int32Matrix, a, b *Int8Matrix) error {
	d := a.buf.dev
	if b.buf.dev != d || dst.buf.dev != d {
		return fmt.Errorf("gnnlib/cuda: MatMulInt8: operands on different devices")
	}
	if a.Cols != b.Cols || dst.Rows != a.Rows || dst.Cols != b.Rows {
		return shapeErr("MatMulInt8", "%dx%d · (%dx%d)ᵀ into %dx%d", a.Rows, a.Cols, b.Rows, b.Cols, dst.Rows, dst.Cols)
	}
	if dst.Rows == 0 || dst.Cols == 0 {
		return nil
	}
	return d.launch3("gemm_s8", [3]int{(b.Rows + 63) / 64, (a.Rows + 63) / 64, 1}, [3]int{256, 1, 1},
		a.buf.ptr, b.buf.ptr, dst.buf.ptr, a.Rows, b.Rows, a.Cols)
}

// SpMMInt8 computes dst[v,:] = Σ_{u→v} x[u,:] over g (edge weights are
// ignored) with int8 rows and int32 sums: the aggregation step of an
// integer GNN layer.
func SpMMInt8(dst *Int32Matrix, g *Graph, x *Int8Matrix) error {
	d := g.dev
	if x.buf.dev != d || dst.buf.dev != d {
		return fmt.Errorf("gnnlib/cuda: SpMMInt8: operands on different devices")
	}
	if x.Rows != g.nsrc || dst.Rows != g.n || dst.Cols != x.Cols {
		return shapeErr("SpMMInt8", "graph %d<-%d nodes, x %dx%d, dst %dx%d", g.n, g.nsrc, x.Rows, x.Cols, dst.Rows, dst.Cols)
	}
	if dst.Rows == 0 || dst.Cols == 0 {
		return nil
	}
	return d.launch("spmm_s8", d.gridFor(int64(g.n)*32, 256), 256, g.indptr, g.idx, x.buf.ptr, dst.buf.ptr, g.n, x.Cols)
}

// GEMMInt8 is MatMulInt8 for host slices, the call gnnlib/quant makes: it
// uploads a (m x k) and b (n x k), multiplies a·bᵀ on d and returns the m x
// n int32 product.
func (d *Device) GEMMInt8(a, b []int8, m, n, k int) ([]int32, error) {
	da, err := d.Int8FromHost(a, m, k)
	if err != nil {
		return nil, err
	}
	defer da.Free()
	db, err := d.Int8FromHost(b, n, k)
	if err != nil {
		return nil, err
	}
	defer db.Free()
	c, err := d.EmptyInt32(m, n)
	if err != nil {
		return nil, err
	}
	defer c.Free()
	if err := MatMulInt8(c, da, db); err != nil {
		return nil, err
	}
	return c.Host()
}
