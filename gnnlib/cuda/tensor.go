package cuda

import (
	"fmt"
	"unsafe"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Tensor is a dense float32 matrix in device memory, row-major, with Rows
// rows of Cols values (a vector is one row). It is the device counterpart of
// a 2-D tensor.Tensor: To moves one there and Host brings it back.
type Tensor struct {
	buf        *buffer
	ptr        uintptr
	Rows, Cols int
}

// Len returns Rows*Cols.
func (t *Tensor) Len() int { return t.Rows * t.Cols }

// Device returns the device that holds t.
func (t *Tensor) Device() *Device { return t.buf.dev }

// String describes t without copying it back.
func (t *Tensor) String() string { return fmt.Sprintf("cuda.Tensor(%dx%d)", t.Rows, t.Cols) }

// Free returns t's memory to the device's cache now rather than when the
// garbage collector finds t unreachable. t must not be used afterwards.
func (t *Tensor) Free() {
	if t != nil && t.buf != nil {
		t.buf.release()
	}
}

// Empty allocates an uninitialised rows x cols tensor.
func (d *Device) Empty(rows, cols int) (*Tensor, error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("%w: Empty(%d, %d)", ErrShape, rows, cols)
	}
	b, err := d.newBuffer(int64(rows) * int64(cols) * 4)
	if err != nil {
		return nil, err
	}
	return &Tensor{buf: b, ptr: b.ptr, Rows: rows, Cols: cols}, nil
}

// Zeros allocates a rows x cols tensor of zeros.
func (d *Device) Zeros(rows, cols int) (*Tensor, error) {
	t, err := d.Empty(rows, cols)
	if err != nil {
		return nil, err
	}
	return t, t.Fill(0)
}

// Fill sets every element of t to v. Like a launch, the fill is queued
// without a wait (tune.AsyncLaunch); an error of it comes back from the
// next call that waits.
func (t *Tensor) Fill(v float32) error {
	n := int64(t.Len())
	if n == 0 {
		return nil
	}
	bits := *(*uint32)(unsafe.Pointer(&v))
	if t.buf.dev.record(graphNode{dst: t.ptr, v: bits, n: n}) {
		return nil
	}
	p := t.ptr
	fill := func(drv driver) error { return drv.memsetD32(p, bits, n) }
	if tune.AsyncLaunch || tune.PostFillCopy {
		return t.buf.dev.post(fill)
	}
	return t.buf.dev.do(fill)
}

// FromHost copies a row-major rows x cols matrix to the device.
func (d *Device) FromHost(data []float32, rows, cols int) (*Tensor, error) {
	if len(data) != rows*cols {
		return nil, fmt.Errorf("%w: FromHost: %d values for %dx%d", ErrShape, len(data), rows, cols)
	}
	t, err := d.Empty(rows, cols)
	if err != nil {
		return nil, err
	}
	if err := d.upload(t.ptr, unsafe.Pointer(unsafe.SliceData(data)), int64(len(data))*4); err != nil {
		t.Free()
		return nil, err
	}
	return t, nil
}

// To copies a 1-D or 2-D tensor.Tensor to the device (a 1-D tensor becomes
// one row). Autograd history is not carried: device training uses the
// explicit backward kernels of this package.
func To(d *Device, x *tensor.Tensor) (*Tensor, error) {
	if x.IsSparse() {
		return nil, fmt.Errorf("%w: To: sparse tensor; use NewGraph for adjacency", ErrShape)
	}
	sh := x.Shape()
	switch len(sh) {
	case 1:
		return d.FromHost(x.Data(), 1, sh[0])
	case 2:
		return d.FromHost(x.Data(), sh[0], sh[1])
	}
	return nil, fmt.Errorf("%w: To: shape %v, want 1-D or 2-D", ErrShape, sh)
}

// Host copies t back into a new slice.
func (t *Tensor) Host() ([]float32, error) {
	out := make([]float32, t.Len())
	if len(out) == 0 {
		return out, nil
	}
	err := t.buf.dev.do(func(drv driver) error {
		return drv.dtoh(unsafe.Pointer(unsafe.SliceData(out)), t.ptr, int64(len(out))*4)
	})
	t.buf.dev.waited()
	return out, err
}

// Tensor copies t back into a new 2-D tensor.Tensor.
func (t *Tensor) Tensor() (*tensor.Tensor, error) {
	data, err := t.Host()
	if err != nil {
		return nil, err
	}
	return tensor.Wrap(data, t.Rows, t.Cols), nil
}

// uploadInts copies int32 data to a new buffer.
func (d *Device) uploadInts(data []int32) (*buffer, error) {
	b, err := d.newBuffer(int64(len(data))*4 + 4)
	if err != nil {
		return nil, err
	}
	if len(data) > 0 {
		if err := d.upload(b.ptr, unsafe.Pointer(unsafe.SliceData(data)), int64(len(data))*4); err != nil {
			b.release()
			return nil, err
		}
	}
	return b, nil
}

// pinnedChunk is the staging size for large uploads: pageable memory is
// copied by the driver through its own small bounce buffer, so copying via
// two page-locked chunks lets the CPU fill one while the GPU reads the other.
const pinnedChunk = 32 << 20

// upload copies n bytes from host memory to device memory, through pinned
// staging buffers when the copy is large.
func (d *Device) upload(dst uintptr, src unsafe.Pointer, n int64) error {
	d.uploads.Add(1)
	return d.do(func(drv driver) error {
		if n < 2*pinnedChunk {
			return drv.htod(dst, src, n, false)
		}
		var stage [2]unsafe.Pointer
		for i := range stage {
			p, err := drv.allocHost(pinnedChunk)
			if err != nil {
				// No pinned memory: the plain copy still works.
				for _, q := range stage[:i] {
					drv.freeHost(q)
				}
				return drv.htod(dst, src, n, false)
			}
			stage[i] = p
		}
		defer func() {
			drv.sync()
			drv.freeHost(stage[0])
			drv.freeHost(stage[1])
		}()
		for off, i := int64(0), 0; off < n; off, i = off+pinnedChunk, i+1 {
			m := min(int64(pinnedChunk), n-off)
			if i >= 2 {
				// The copy that used this stage two chunks ago must be done.
				if err := drv.sync(); err != nil {
					return err
				}
			}
			s := stage[i%2]
			copy(unsafe.Slice((*byte)(s), m), unsafe.Slice((*byte)(unsafe.Add(src, off)), m))
			if err := drv.htod(dst+uintptr(off), s, m, true); err != nil {
				return err
			}
		}
		return nil
	})
}
