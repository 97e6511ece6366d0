package cuda

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// Permute returns x with its axes reordered (out.shape[i] =
// x.shape[perm[i]]); the shape and strides go to the kernel in a small
// uploaded table.
func (d *backend) Permute(x *tensor.Tensor, perm []int) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	shape := x.Shape()
	if len(perm) != len(shape) {
		return nil, shapeErr("Permute", "%d axes for shape %v", len(perm), shape)
	}
	strides := make([]int, len(shape))
	st := 1
	for a := len(shape) - 1; a >= 0; a-- {
		strides[a] = st
		st *= shape[a]
	}
	meta := make([]int32, 1+2*len(perm))
	meta[0] = int32(len(perm))
	for i, a := range perm {
		if a < 0 || a >= len(shape) || shape[a] > int32Max || strides[a] > int32Max {
			return nil, fmt.Errorf("gnnlib/cuda: Permute %v of shape %v: %w", perm, shape, tensor.ErrNotOnDevice)
		}
		meta[1+i], meta[1+len(perm)+i] = int32(shape[a]), int32(strides[a])
	}
	out, err := d.Empty(v.Rows, v.Cols) // the caller gives it the permuted shape
	n := int64(v.Len())
	if err != nil || n == 0 {
		return out, err
	}
	mb, err := d.uploadInts(meta)
	if err != nil {
		return nil, err
	}
	defer mb.release()
	return out, d.launch("permute_nd", d.gridFor(n, 256), 256, v, out, n, mb)
}

// convShape returns the sizes of a convolution of x [N, C, H, W] with
// kh×kw windows, failing when the kernels' int arguments cannot hold them.
func convShape(op string, shape []int, kh, kw, stride, padding int) (n, c, h, w, oh, ow int, err error) {
	if len(shape) != 4 || kh < 1 || kw < 1 || stride < 1 || padding < 0 {
		return 0, 0, 0, 0, 0, 0, shapeErr(op, "input %v, kernel %dx%d, stride %d, padding %d", shape, kh, kw, stride, padding)
	}
	n, c, h, w = shape[0], shape[1], shape[2], shape[3]
	oh, ow = (h+2*padding-kh)/stride+1, (w+2*padding-kw)/stride+1
	if oh < 1 || ow < 1 {
		return 0, 0, 0, 0, 0, 0, shapeErr(op, "kernel %dx%d larger than the padded input %v", kh, kw, shape)
	}
	if c*kh*kw > int32Max || n > int32Max || h*w > int32Max {
		return 0, 0, 0, 0, 0, 0, fmt.Errorf("gnnlib/cuda: %s: input %v too large for the kernels: %w", op, shape, tensor.ErrNotOnDevice)
	}
	return n, c, h, w, oh, ow, nil
}

// Im2Col returns the receptive fields of x [N, C, H, W], one row of
// C·KH·KW values per output pixel ([N·OH·OW, C·KH·KW]), so that a
// convolution is one product with the weight (see tensor.Backend).
func (d *backend) Im2Col(x *tensor.Tensor, kh, kw, stride, padding int) (tensor.Storage, error) {
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	n, c, h, w, oh, ow, err := convShape("Im2Col", x.Shape(), kh, kw, stride, padding)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(n*oh*ow, c*kh*kw)
	total := int64(out.Len())
	if err != nil || total == 0 {
		return out, err
	}
	return out, d.launch("im2col_rows", d.gridFor(total, 256), 256, v, out, n, c, h, w, kh, kw, oh, ow, stride, padding)
}

// Col2Im adds the rows of cols back into an image of shape [N, C, H, W].
func (d *backend) Col2Im(cols *tensor.Tensor, shape []int, kh, kw, stride, padding int) (tensor.Storage, error) {
	v, err := d.view(cols)
	if err != nil {
		return nil, err
	}
	n, c, h, w, oh, ow, err := convShape("Col2Im", shape, kh, kw, stride, padding)
	if err != nil {
		return nil, err
	}
	if v.Len() != n*oh*ow*c*kh*kw {
		return nil, shapeErr("Col2Im", "%d values for the fields of %v", v.Len(), shape)
	}
	out, err := d.Empty(n*c*h, w)
	total := int64(out.Len())
	if err != nil || total == 0 {
		return out, err
	}
	return out, d.launch("col2im_rows", d.gridFor(total, 256), 256, v, out, n, c, h, w, kh, kw, oh, ow, stride, padding)
}

// poolShape checks a pooling of x [N, C, H, W] and returns the number of
// outputs with the sizes the kernels take.
func poolShape(op string, shape []int, kernel, stride int) (total int64, h, w, oh, ow int, err error) {
	if len(shape) != 4 || kernel < 1 || stride < 1 || kernel > shape[2] || kernel > shape[3] {
		return 0, 0, 0, 0, 0, shapeErr(op, "input %v, kernel %d, stride %d", shape, kernel, stride)
	}
	h, w = shape[2], shape[3]
	oh, ow = (h-kernel)/stride+1, (w-kernel)/stride+1
	return int64(shape[0]) * int64(shape[1]) * int64(oh) * int64(ow), h, w, oh, ow, nil
}

// Pool2D returns the maximum or mean over kernel×kernel windows of x.
func (d *backend) Pool2D(op tbackend.PoolOp, x *tensor.Tensor, kernel, stride int) (tensor.Storage, error) {
	if int(op) >= len(poolOpKernels) {
		return nil, fmt.Errorf("gnnlib/cuda: Pool2D %v: %w", op, tensor.ErrNotOnDevice)
	}
	code := poolOpKernels[op].code
	v, err := d.view(x)
	if err != nil {
		return nil, err
	}
	total, h, w, oh, ow, err := poolShape("Pool2D", x.Shape(), kernel, stride)
	if err != nil {
		return nil, err
	}
	out, err := d.Empty(1, int(total))
	if err != nil || total == 0 {
		return out, err
	}
	return out, d.launch("pool2d_fwd", d.gridFor(total, 256), 256, v, out, total, h, w, oh, ow, kernel, stride, code)
}

// Pool2DGrad returns the gradient of Pool2D's input x from the output's
// gradient g.
func (d *backend) Pool2DGrad(op tbackend.PoolOp, g, x *tensor.Tensor, kernel, stride int) (tensor.Storage, error) {
	if int(op) >= len(poolOpKernels) {
		return nil, fmt.Errorf("gnnlib/cuda: Pool2DGrad %v: %w", op, tensor.ErrNotOnDevice)
	}
	code := poolOpKernels[op].code
	vs, err := d.views(g, x)
	if err != nil {
		return nil, err
	}
	total, h, w, oh, ow, err := poolShape("Pool2DGrad", x.Shape(), kernel, stride)
	if err != nil {
		return nil, err
	}
	if int64(vs[0].Len()) != total {
		return nil, shapeErr("Pool2DGrad", "gradient of %d values for %d outputs", vs[0].Len(), total)
	}
	dx, err := d.Zeros(vs[1].Rows, vs[1].Cols)
	if err != nil || total == 0 {
		return dx, err
	}
	return dx, d.launch("pool2d_bwd", d.gridFor(total, 256), 256, vs[0], vs[1], dx, total, h, w, oh, ow, kernel, stride, code)
}
