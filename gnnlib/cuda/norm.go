package cuda

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// LayerNorm normalises the rows of x (its last axis, of gamma's length),
// keeping each row's mean and 1/std for the backward pass.
func (d *backend) LayerNorm(x, gamma, beta *tensor.Tensor, eps float32) (tensor.Storage, func(grad *tensor.Tensor) (dx, dgamma, dbeta tensor.Storage, err error), error) {
	vs, err := d.views(x, gamma, beta)
	if err != nil {
		return nil, nil, err
	}
	v, dim := vs[0], vs[1].Len()
	if v.Cols != dim || vs[2].Len() != dim {
		return nil, nil, shapeErr("LayerNorm", "rows of %d, gamma %d, beta %d", v.Cols, dim, vs[2].Len())
	}
	rows := v.Rows
	y, err := d.Empty(rows, dim)
	if err != nil {
		return nil, nil, err
	}
	mean, err := d.Empty(1, rows)
	if err != nil {
		return nil, nil, err
	}
	invstd, err := d.Empty(1, rows)
	if err != nil {
		return nil, nil, err
	}
	if y.Len() > 0 {
		if err := d.launch("layer_norm_fwd", d.gridFor(int64(rows)*32, 256), 256, v, vs[1], vs[2], y, mean, invstd, int64(rows), dim, eps); err != nil {
			return nil, nil, err
		}
	}
	backward := func(grad *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error) {
		gv, err := d.view(grad)
		if err != nil {
			return nil, nil, nil, err
		}
		if gv.Len() != y.Len() {
			return nil, nil, nil, shapeErr("LayerNorm backward", "gradient of %d values for %d", gv.Len(), y.Len())
		}
		dx, err := d.Empty(rows, dim)
		if err != nil {
			return nil, nil, nil, err
		}
		dg, err := d.Zeros(1, dim)
		if err != nil {
			return nil, nil, nil, err
		}
		db, err := d.Zeros(1, dim)
		if err != nil || dx.Len() == 0 {
			return dx, dg, db, err
		}
		if err := d.launch("layer_norm_bwd_dx", d.gridFor(int64(rows)*32, 256), 256, v, vs[1], mean, invstd, gv, dx, int64(rows), dim); err != nil {
			return nil, nil, nil, err
		}
		// Row chunks of at least 512, few enough for the grid's y limit.
		chunk := max(512, (rows+65534)/65535)
		grid := [3]int{(dim + 127) / 128, (rows + chunk - 1) / chunk, 1}
		return dx, dg, db, d.launch3("layer_norm_bwd_param", grid, [3]int{128, 1, 1}, v, mean, invstd, gv, dg, db, rows, dim, chunk)
	}
	return y, backward, nil
}

// BatchNorm normalises the channels of x [N, C, ...] (axis 1) with the
// batch's statistics, moving runMean and runVar in place, when train is
// set, and with the running statistics otherwise; one block per channel
// reduces in float64.
func (d *backend) BatchNorm(x, gamma, beta, runMean, runVar *tensor.Tensor, train bool, momentum, eps float32) (tensor.Storage, func(grad *tensor.Tensor) (dx, dgamma, dbeta tensor.Storage, err error), error) {
	vs, err := d.views(x, gamma, beta, runMean, runVar)
	if err != nil {
		return nil, nil, err
	}
	shape := x.Shape()
	if len(shape) < 2 {
		return nil, nil, shapeErr("BatchNorm", "input of shape %v, want [N, C, ...]", shape)
	}
	n, c := shape[0], shape[1]
	inner := 1
	for _, s := range shape[2:] {
		inner *= s
	}
	for _, p := range vs[1:] {
		if p.Len() != c {
			return nil, nil, shapeErr("BatchNorm", "%d channels, a parameter of %d", c, p.Len())
		}
	}
	if n > int32Max || c > int32Max {
		return nil, nil, fmt.Errorf("gnnlib/cuda: BatchNorm: shape %v: %w", shape, tensor.ErrNotOnDevice)
	}
	m := int64(n) * int64(inner)
	if train && m < 2 {
		return nil, nil, shapeErr("BatchNorm", "%d values per channel in training", m)
	}
	total := int64(vs[0].Len())
	y, err := d.Empty(vs[0].Rows, vs[0].Cols)
	if err != nil {
		return nil, nil, err
	}
	mean, err := d.Empty(1, c)
	if err != nil {
		return nil, nil, err
	}
	invstd, err := d.Empty(1, c)
	if err != nil {
		return nil, nil, err
	}
	grid := min(c, 4*d.nsm)
	if c > 0 {
		if err := d.launch("bn_stats", grid, 256, vs[0], mean, invstd, vs[3], vs[4], n, c, int64(inner), eps, momentum, train); err != nil {
			return nil, nil, err
		}
	}
	if total > 0 {
		if err := d.launch("bn_apply", d.gridFor(total, 256), 256, vs[0], mean, invstd, vs[1], vs[2], y, total, c, int64(inner)); err != nil {
			return nil, nil, err
		}
	}
	backward := func(grad *tensor.Tensor) (tensor.Storage, tensor.Storage, tensor.Storage, error) {
		gv, err := d.view(grad)
		if err != nil {
			return nil, nil, nil, err
		}
		if int64(gv.Len()) != total {
			return nil, nil, nil, shapeErr("BatchNorm backward", "gradient of %d values for %d", gv.Len(), total)
		}
		dx, err := d.Empty(vs[0].Rows, vs[0].Cols)
		if err != nil {
			return nil, nil, nil, err
		}
		dg, err := d.Zeros(1, c)
		if err != nil {
			return nil, nil, nil, err
		}
		db, err := d.Zeros(1, c)
		if err != nil || c == 0 || total == 0 {
			return dx, dg, db, err
		}
		if err := d.launch("bn_bwd_reduce", grid, 256, vs[0], gv, mean, invstd, dg, db, n, c, int64(inner)); err != nil {
			return nil, nil, nil, err
		}
		return dx, dg, db, d.launch("bn_bwd_dx", d.gridFor(total, 256), 256, vs[0], gv, mean, invstd, vs[1], dg, db, dx, total, c, int64(inner), float32(m), train)
	}
	return y, backward, nil
}
