package cuda

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
	"weak"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// This file makes a Device a tensor.Backend (and a gnnlib/nn DeviceOps):
// tensor.Tensor values whose Storage is a *Tensor of this package run
// their ops here, with autograd recorded by gnnlib/tensor and gnnlib/nn.

func init() {
	tensor.RegisterBackend("cuda", func() (tensor.Backend, error) {
		d, err := Default()
		if err != nil {
			// Not a nil *Device in a non-nil interface.
			return nil, err
		}
		return d, nil
	})
	// prof's memory tracker samples the device allocators alongside the
	// Go heap once a device is open.
	tensor.RegisterMemory("cuda", DeviceMemory)
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
func (t *Tensor) Backend() tensor.Backend { return t.buf.dev }

// view returns x's storage as a matrix of x's shape: all axes but the last
// are rows (a scalar is 1x1).
func (d *Device) view(x *tensor.Tensor) (*Tensor, error) {
	s, ok := x.Storage().(*Tensor)
	if !ok || s.buf.dev != d {
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
func (d *Device) Upload(data []float32, shape []int) (tensor.Storage, error) {
	rows, cols := matrixShape(shape)
	return d.FromHost(data, rows, cols)
}

// Download copies t's values into dst.
func (d *Device) Download(dst []float32, t *tensor.Tensor) error {
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
	return d.do(func(drv driver) error {
		return drv.dtoh(unsafe.Pointer(unsafe.SliceData(dst)), v.ptr, int64(len(dst))*4)
	})
}

// Copy returns a copy of t's values.
func (d *Device) Copy(t *tensor.Tensor) (tensor.Storage, error) {
	v, err := d.view(t)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(v.Rows, v.Cols)
	if err != nil || v.Len() == 0 {
		return out, err
	}
	return out, d.do(func(drv driver) error { return drv.dtod(out.ptr, v.ptr, int64(v.Len())*4) })
}

// AddTo adds src to dst in place.
func (d *Device) AddTo(dst, src *tensor.Tensor) error {
	vs, err := d.views(dst, src)
	if err != nil {
		return err
	}
	return Axpby(vs[0], 1, vs[1], 1)
}

// Scale returns n values (x[i] or 1)·(s[0] or 1)·k.
func (d *Device) Scale(n int, x, s *tensor.Tensor, k float32) (tensor.Storage, error) {
	vs, err := d.views(x, s)
	if err != nil {
		return nil, err
	}
	rows, cols := 1, n
	if vs[0] != nil {
		if vs[0].Len() != n {
			return nil, shapeErr("Scale", "%d values, x has %d", n, vs[0].Len())
		}
		rows, cols = vs[0].Rows, vs[0].Cols
	}
	out, err := d.Empty(rows, cols)
	if err != nil || n == 0 {
		return out, err
	}
	return out, d.launch("scale_op", d.gridFor(int64(n), 256), 256, vs[0], vs[1], out, int64(n), k)
}

// MatMul returns op(a)·op(b) with the package's tiled GEMM.
func (d *Device) MatMul(a, b *tensor.Tensor, transA, transB bool) (tensor.Storage, error) {
	vs, err := d.views(a, b)
	if err != nil {
		return nil, err
	}
	m, n := vs[0].Rows, vs[1].Cols
	if transA {
		m = vs[0].Cols
	}
	if transB {
		n = vs[1].Rows
	}
	out, err := d.Empty(m, n)
	if err != nil {
		return nil, err
	}
	if out.Len() == 0 {
		return out, nil
	}
	return out, MatMul(out, vs[0], vs[1], transA, transB)
}

// Binary returns a op b, b of a's length, one broadcast row or one value.
func (d *Device) Binary(op string, a, b *tensor.Tensor) (tensor.Storage, error) {
	code, ok := binaryOps[op]
	if !ok && op != "div" {
		return nil, fmt.Errorf("gnnlib/cuda: Binary %q: %w", op, tensor.ErrNotOnDevice)
	}
	vs, err := d.views(a, b)
	if err != nil {
		return nil, err
	}
	row, f := 0, max(1, vs[0].Cols)
	switch {
	case vs[1].Len() == vs[0].Len():
	case vs[1].Len() == vs[0].Cols:
		row = 1
	case vs[1].Len() == 1: // a row of one value: b[i % 1]
		row, f = 1, 1
	default:
		return nil, shapeErr("Binary", "%dx%d %s %d values", vs[0].Rows, vs[0].Cols, op, vs[1].Len())
	}
	out, err := d.Empty(vs[0].Rows, vs[0].Cols)
	n := int64(vs[0].Len())
	if err != nil || n == 0 {
		return out, err
	}
	if op == "div" {
		return out, d.launch("div_op", d.gridFor(n, 256), 256, vs[0], vs[1], out, n, f, row)
	}
	return out, d.launch("binary_op", d.gridFor(n, 256), 256, vs[0], vs[1], out, n, f, code, row)
}

// mapKernel returns the kernel (map_fwd or map_ext_fwd, with suffix
// replacing "fwd") and code of an element-wise op.
func mapKernel(method, op, suffix string) (string, int, error) {
	if code, ok := mapOps[op]; ok {
		return "map_" + suffix, code, nil
	}
	if code, ok := mapExtOps[op]; ok {
		return "map_ext_" + suffix, code, nil
	}
	return "", 0, fmt.Errorf("gnnlib/cuda: %s %q: %w", method, op, tensor.ErrNotOnDevice)
}

// Map returns op(x) element-wise.
func (d *Device) Map(op string, x *tensor.Tensor, p float32) (tensor.Storage, error) {
	kernel, code, err := mapKernel("Map", op, "fwd")
	if err != nil {
		return nil, err
	}
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(v.Rows, v.Cols)
	n := int64(v.Len())
	if err != nil || n == 0 {
		return out, err
	}
	return out, d.launch(kernel, d.gridFor(n, 256), 256, v, out, n, code, p)
}

// MapGrad returns g·op'(x) given x and y = op(x).
func (d *Device) MapGrad(op string, g, x, y *tensor.Tensor, p float32) (tensor.Storage, error) {
	kernel, code, err := mapKernel("MapGrad", op, "bwd")
	if err != nil {
		return nil, err
	}
	vs, err := d.views(g, x, y)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(vs[0].Rows, vs[0].Cols)
	n := int64(vs[0].Len())
	if err != nil || n == 0 {
		return out, err
	}
	return out, d.launch(kernel, d.gridFor(n, 256), 256, vs[0], vs[1], vs[2], out, n, code, p)
}

// ColSum sums x over its rows.
func (d *Device) ColSum(x *tensor.Tensor) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(1, v.Cols)
	if err != nil {
		return nil, err
	}
	return out, ColSum(out, v)
}

// Sum returns the sum of x's values as a 1x1 tensor.
func (d *Device) Sum(x *tensor.Tensor) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	out, err := d.Zeros(1, 1)
	n := int64(v.Len())
	if err != nil || n == 0 {
		return out, err
	}
	return out, d.launch("sum_all", min(d.gridFor(n, 256), 4*d.nsm), 256, v, out, n)
}

// Dropout returns x with dropout p, its mask drawn from (seed, index).
func (d *Device) Dropout(x *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(v.Rows, v.Cols)
	if err != nil || v.Len() == 0 {
		return out, err
	}
	return out, BiasAct(out, v, nil, false, p, seed)
}

// DropoutGrad returns g through Dropout's mask for the same p and seed.
func (d *Device) DropoutGrad(g *tensor.Tensor, p float32, seed uint64) (tensor.Storage, error) {
	v, err := d.view(g)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(v.Rows, v.Cols)
	n := int64(v.Len())
	if err != nil || n == 0 {
		return out, err
	}
	return out, d.launch("dropout_bwd", d.gridFor(n, 256), 256, v, out, n, p, seed)
}

// CrossEntropy returns the mean cross-entropy over rows and its gradient,
// fused (SoftmaxNLL). The per-row labels, -1 outside rows, are uploaded
// per call: a few hundred kilobytes for an ogbn-arxiv-sized graph.
func (d *Device) CrossEntropy(logits *tensor.Tensor, labels, rows []int) (loss, grad tensor.Storage, err error) {
	v, err := d.view(logits)
	if err != nil {
		return nil, nil, err
	}
	y := labels
	if rows != nil {
		y = make([]int, len(labels))
		for i := range y {
			y[i] = -1
		}
		for _, r := range rows {
			if y[r] >= 0 {
				return nil, nil, fmt.Errorf("gnnlib/cuda: CrossEntropy with row %d listed twice: %w", r, tensor.ErrNotOnDevice)
			}
			y[r] = labels[r]
		}
	}
	lab, err := NewLabels(d, y)
	if err != nil {
		return nil, nil, err
	}
	defer lab.buf.release()
	g, err := d.Empty(v.Rows, v.Cols)
	if err != nil {
		return nil, nil, err
	}
	l, err := d.Empty(1, 1)
	if err != nil {
		return nil, nil, err
	}
	return l, g, SoftmaxNLL(g, l, v, lab)
}

// graphKey names a host graph and which edge weights its device copy
// carries.
type graphKey struct {
	g    weak.Pointer[graph.Graph]
	mode graphMode
}

// graphMode selects a device graph's edge weights.
type graphMode int

const (
	unweighted  graphMode = iota
	weighted              // the host graph's Weights
	meanWeights           // 1/in-degree of the destination (GraphSAGE's mean)
)

// graphs caches the device copies of host graphs: uploaded at first use
// and freed when the host graph is garbage collected, so a training loop
// uploads each graph (and its transpose) once.
type graphCache struct {
	mu sync.Mutex
	m  map[graphKey]*Graph
}

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
	key := graphKey{weak.Make(g), mode}
	c := &d.graphs
	c.mu.Lock()
	defer c.mu.Unlock()
	if dg := c.m[key]; dg != nil {
		return dg, nil
	}
	var dg *Graph
	var err error
	switch mode {
	case weighted:
		dg, err = NewGraph(d, g)
	case meanWeights:
		w, tw := meanEdgeWeights(g)
		t := g.Transpose()
		dg, err = NewGraphCSR(d, g.NumSrc(), g.Indptr, g.Indices, w, t.Indptr, t.Indices, tw)
	default:
		t := g.Transpose()
		dg, err = NewGraphCSR(d, g.NumSrc(), g.Indptr, g.Indices, nil, t.Indptr, t.Indices, nil)
	}
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[graphKey]*Graph{}
	}
	c.m[key] = dg
	runtime.AddCleanup(g, func(k graphKey) {
		c.mu.Lock()
		dg := c.m[k]
		delete(c.m, k)
		c.mu.Unlock()
		if dg != nil {
			dg.Free()
		}
	}, key)
	return dg, nil
}

// GraphSpMM returns A·x (or Aᵀ·x) over g for gnnlib/nn.
func (d *Device) GraphSpMM(g *graph.Graph, weighted, transpose bool, x *tensor.Tensor) (tensor.Storage, error) {
	dg, err := d.deviceGraph(g, weighted)
	if err != nil {
		return nil, err
	}
	return d.spmm(dg, transpose, x)
}

// spmm returns A·x (or Aᵀ·x) over the uploaded graph dg.
func (d *Device) spmm(dg *Graph, transpose bool, x *tensor.Tensor) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	rows := dg.n
	if transpose {
		rows = dg.nsrc
	}
	out, err := d.Empty(rows, v.Cols)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	if transpose {
		return out, SpMMT(out, dg, v, SpMMAuto)
	}
	return out, SpMM(out, dg, v, SpMMAuto)
}

// GATv2Attention runs the fused GATv2 attention for gnnlib/nn: hs (the
// messages, x·W_l) and hd (the targets, x·W_r) are read in place, and the
// backward pass writes their gradients directly. p is the attention
// dropout (0: none), its mask drawn from seed.
func (d *Device) GATv2Attention(g *graph.Graph, hs, hd, att *tensor.Tensor, heads int, slope, p float32, seed uint64) (tensor.Storage, func(*tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error), error) {
	if !g.IsSquare() {
		return nil, nil, fmt.Errorf("gnnlib/cuda: GATv2Attention on a rectangular graph (a sampled block): %w", tensor.ErrNotOnDevice)
	}
	vs, err := d.views(hs, hd, att)
	if err != nil {
		return nil, nil, err
	}
	hc := vs[0].Cols
	c := hc / heads
	if _, _, ok := gatShape(c); !ok {
		return nil, nil, fmt.Errorf("gnnlib/cuda: GATv2Attention with %d channels per head (the fused kernel takes 8, 16, 32, 64, 128, 256 or 512): %w", c, tensor.ErrNotOnDevice)
	}
	dg, err := d.deviceGraph(g, false)
	if err != nil {
		return nil, nil, err
	}
	xl, xr := vs[0], vs[1]
	a := &Tensor{buf: vs[2].buf, ptr: vs[2].ptr, Rows: 1, Cols: hc}
	fw, err := GATv2ForwardLR(dg, xl, xr, a, heads, c, slope, AttentionDropout{P: p, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	done := false
	backward := func(grad *tensor.Tensor) (dhs, dhd, datt tensor.Storage, err error) {
		if done {
			return nil, nil, nil, errBackwardTwice
		}
		done = true
		// The log-sum-exp and the saved edges are the op's private state:
		// give them back as soon as the pass ran instead of when the
		// collector finds the closure dead (Out belongs to the caller).
		defer func() {
			fw.LSE.Free()
			fw.d.Free()
			fw.freeEdges()
		}()
		dout, err := d.view(grad)
		if err != nil {
			return nil, nil, nil, err
		}
		n := xl.Rows
		dr, err := d.Empty(n, hc)
		if err != nil {
			return nil, nil, nil, err
		}
		da, err := d.Empty(vs[2].Rows, vs[2].Cols)
		if err != nil {
			return nil, nil, nil, err
		}
		if err := fw.BackwardDst(dg, xl, xr, a, dout, dr, &Tensor{buf: da.buf, ptr: da.ptr, Rows: 1, Cols: hc}); err != nil {
			return nil, nil, nil, err
		}
		dl, err := d.Empty(n, hc)
		if err != nil {
			return nil, nil, nil, err
		}
		if err := fw.BackwardSrc(dg, xl, xr, a, dout, dl); err != nil {
			return nil, nil, nil, err
		}
		return dl, dr, da, nil
	}
	return fw.Out, backward, nil
}

// AdamStep updates p, m and v in place as gnnlib/nn's Adam.Step does.
func (d *Device) AdamStep(p, grad, m, v *tensor.Tensor, step, beta1, beta2, eps, sqrtC2, weightDecay, shrink float32, decoupled bool) error {
	vs, err := d.views(p, grad, m, v)
	if err != nil {
		return err
	}
	n := int64(vs[0].Len())
	for _, x := range vs[1:] {
		if int64(x.Len()) != n {
			return shapeErr("AdamStep", "parameter of %d values, state of %d", n, x.Len())
		}
	}
	if n == 0 {
		return nil
	}
	return d.launch("adam_wd", d.gridFor(n, 256), 256, vs[0], vs[1], vs[2], vs[3], n, step, beta1, beta2, eps, sqrtC2, weightDecay, shrink, decoupled)
}
