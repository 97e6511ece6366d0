package cuda

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// backend is a Device seen as a tensor.Backend with the GraphOps
// capability of gnnlib/tensor/backend (imported here as tbackend):
// tensor.Tensor values whose Storage is a *Tensor of this package run
// their ops through it, with autograd recorded by gnnlib/tensor and
// gnnlib/nn. Its methods are plumbing that only those packages call, so
// the type is unexported and the notebook API of this package stays what
// a user calls; Device.Backend returns it, and each kernel family's file
// holds the methods of that family (gemm.go: MatMul, and so on).
//
// Device.Backend's value looks up the calling goroutine's Autocast scope
// on every call that has a bfloat16 kernel; WithAutocast's value
// (fixed) has it fixed for one op's calls.
type backend struct {
	*Device
	fixed bool         // WithAutocast's: cast holds the format of the op's calls
	cast  tensor.DType // the Autocast format WithAutocast fixed
}

// WithAutocast is tbackend.AutocastFixer: d with the Autocast format
// fixed to dt for the calls of one op.
func (d *backend) WithAutocast(dt tensor.DType) tensor.Backend {
	return &backend{Device: d.Device, fixed: true, cast: dt}
}

// autocastBF16 reports whether d's calls run under Autocast(BFloat16) on
// a device with bfloat16 kernels (Device.autocastBF16), with the format
// WithAutocast fixed when it did.
func (d *backend) autocastBF16() bool {
	if !d.fixed {
		return d.Device.autocastBF16()
	}
	return d.cast == tensor.BFloat16 && d.hasBF16()
}

// Backend returns d as a tensor.Backend (with backend.GraphOps), the
// value tensor.Device("cuda") returns for Default: what Tensor.To,
// nn.To and the tensor API take.
//
//	d, err := cuda.Open(0)
//	nn.To(model, d.Backend())
func (d *Device) Backend() tensor.Backend { return d.be }

func init() {
	tbackend.Register("cuda", tbackend.Driver{
		Open: func() (tensor.Backend, error) {
			d, err := Default()
			if err != nil {
				// Not a nil *backend in a non-nil interface.
				return nil, err
			}
			return d.Backend(), nil
		},
		// prof's memory tracker samples the device allocators alongside
		// the Go heap once a device is open.
		InUse: DeviceMemory,
	})
}

var defaultDev struct {
	sync.Mutex
	d *Device
}

// Default returns the process's shared device 0, opening it on first use;
// tensor.Device("cuda") returns it too, so tensors moved by either meet on
// one device. It is never closed. Like Open, it returns ErrNoCUDA in a
// binary built without the cuda tag and an error wrapping ErrNoDevice on a
// machine without a usable GPU.
func Default() (*Device, error) {
	defaultDev.Lock()
	defer defaultDev.Unlock()
	if defaultDev.d != nil {
		return defaultDev.d, nil
	}
	d, err := Open(0)
	if err != nil {
		return nil, err
	}
	defaultDev.d = d
	return d, nil
}

// Backend returns the device holding t: a *Tensor is a tensor.Storage.
func (t *Tensor) Backend() tensor.Backend { return t.buf.dev.be }

// view returns x's storage as a matrix of x's shape: all axes but the last
// are rows (a scalar is 1x1).
func (d *Device) view(x *tensor.Tensor) (*Tensor, error) {
	s, ok := x.Storage().(*Tensor)
	if !ok || s.buf.dev != d {
		if h, ok := d.halfView(x); ok {
			return d.widen(h, h.Rows, h.Cols) // halfstore.go
		}
		return nil, fmt.Errorf("gnnlib/cuda: tensor %v is not on %v", x.Shape(), d)
	}
	rows, cols := matrixShape(x.Shape())
	return &Tensor{buf: s.buf, ptr: s.ptr, Rows: rows, Cols: cols}, nil
}

func matrixShape(shape []int) (rows, cols int) {
	if len(shape) == 0 {
		return 1, 1
	}
	cols = shape[len(shape)-1]
	rows = 1
	for _, v := range shape[:len(shape)-1] {
		rows *= v
	}
	return rows, cols
}

// views returns the views of xs, failing on the first error.
func (d *Device) views(xs ...*tensor.Tensor) ([]*Tensor, error) {
	out := make([]*Tensor, len(xs))
	for i, x := range xs {
		if x == nil {
			continue
		}
		v, err := d.view(x)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Upload copies host data of the given shape to the device.
func (d *backend) Upload(data []float32, shape []int) (tensor.Storage, error) {
	rows, cols := matrixShape(shape)
	return d.FromHost(data, rows, cols)
}

// Download copies t's values into dst.
func (d *backend) Download(dst []float32, t *tensor.Tensor) error {
	v, err := d.view(t)
	if err != nil {
		return err
	}
	if len(dst) != v.Len() {
		return shapeErr("Download", "%d values into %d", v.Len(), len(dst))
	}
	if len(dst) == 0 {
		return nil
	}
	err = d.do(func(drv driver) error {
		return drv.dtoh(unsafe.Pointer(unsafe.SliceData(dst)), v.ptr, int64(len(dst))*4)
	})
	d.waited()
	return err
}

// Copy returns a copy of t's values.
func (d *backend) Copy(t *tensor.Tensor) (tensor.Storage, error) {
	if h, ok := d.halfView(t); ok {
		return d.widen(h, h.Rows, h.Cols) // a float32 copy (HalfStorer)
	}
	v, err := d.view(t)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(v.Rows, v.Cols)
	if err != nil || v.Len() == 0 {
		return out, err
	}
	to, from, n := out.ptr, v.ptr, int64(v.Len())*4
	if tune.PostFillCopy {
		return out, d.post(func(drv driver) error { return drv.dtod(to, from, n) })
	}
	return out, d.do(func(drv driver) error { return drv.dtod(to, from, n) })
}

// graphMode selects a device graph's edge weights.
type graphMode int

const (
	unweighted  graphMode = iota
	weighted              // the host graph's Weights
	meanWeights           // 1/in-degree of the destination (GraphSAGE's mean)
)

// deviceGraph returns g on d, uploading it at first use.
func (d *Device) deviceGraph(g *graph.Graph, useWeights bool) (*Graph, error) {
	mode := unweighted
	if useWeights && g.Weights != nil {
		mode = weighted
	}
	return d.deviceGraphMode(g, mode)
}

// deviceGraphMode returns g on d with the edge weights of mode, uploading
// it at first use.
func (d *Device) deviceGraphMode(g *graph.Graph, mode graphMode) (*Graph, error) {
	return d.graphs.Get(g, mode, func() (*Graph, error) {
		switch mode {
		case weighted:
			return NewGraph(d, g)
		case meanWeights:
			w, tw := meanEdgeWeights(g)
			t := g.Transpose()
			return NewGraphCSR(d, g.NumSrc(), g.Indptr, g.Indices, w, t.Indptr, t.Indices, tw)
		default:
			t := g.Transpose()
			return NewGraphCSR(d, g.NumSrc(), g.Indptr, g.Indices, nil, t.Indptr, t.Indices, nil)
		}
	})
}
