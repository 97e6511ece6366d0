package cuda

import (
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// GraphMaxAggregate returns the element-wise maximum of the in-neighbours'
// rows of x over g (AggregateMax, degree-aware) and a function computing
// x's gradient, which goes to the neighbour that won each element. The
// winners are kept on the device until the function is collected.
func (d *backend) GraphMaxAggregate(g *graph.Graph, x *tensor.Tensor) (tensor.Storage, func(grad *tensor.Tensor) (tensor.Storage, error), error) {
	v, err := d.view(x)
	if err != nil {
		return nil, nil, err
	}
	dg, err := d.deviceGraph(g, false)
	if err != nil {
		return nil, nil, err
	}
	f := v.Cols
	out, err := d.Empty(dg.n, f)
	if err != nil {
		return nil, nil, err
	}
	arg, err := d.Empty(dg.n, f) // int32 winners, -1 for none
	if err != nil {
		return nil, nil, err
	}
	if out.Len() > 0 {
		if err := AggregateMax(out, arg, dg, v); err != nil {
			return nil, nil, err
		}
	}
	backward := func(grad *tensor.Tensor) (tensor.Storage, error) {
		gv, err := d.view(grad)
		if err != nil {
			return nil, err
		}
		if gv.Len() != arg.Len() {
			return nil, shapeErr("GraphMaxAggregate backward", "gradient of %d values for %d outputs", gv.Len(), arg.Len())
		}
		dx, err := d.Zeros(dg.nsrc, f)
		total := int64(arg.Len())
		if err != nil || total == 0 {
			return dx, err
		}
		return dx, d.launch("scatter_arg", d.gridFor(total, 256), 256, arg, gv, dx, total, f)
	}
	return out, backward, nil
}

// AggregateMax computes dst[v,c] = max over v's in-edges u of x[u,c] (0 for
// a node without in-edges) and arg[v*F+c] = the winning u (-1 if none), as
// kernels.AggregateMax (gnnlib/graph/kernels) does, arg being an int32
// tensor in disguise (use ArgHost to read it). Light rows are reduced one lane per feature; rows
// with more than 128 in-edges are split into edge tiles reduced in parallel
// and combined by 64-bit atomic max on packed (value, source) keys.
func AggregateMax(dst, arg *Tensor, g *Graph, x *Tensor) error {
	d, err := sameDev("AggregateMax", dst, arg, x)
	if err != nil {
		return err
	}
	f := x.Cols
	if x.Rows != g.nsrc || dst.Rows != g.n || dst.Cols != f || arg.Len() != dst.Len() {
		return shapeErr("AggregateMax", "x %dx%d, dst %dx%d, graph %d<-%d", x.Rows, x.Cols, dst.Rows, dst.Cols, g.n, g.nsrc)
	}
	// The packed keys of the heavy rows need 8 bytes per output element.
	keys, err := d.newBuffer(int64(dst.Len()) * 8)
	if err != nil {
		return err
	}
	defer keys.release()
	total := int64(dst.Len())
	if err := d.launch("agg_max_light", d.gridFor(total, 256), 256, g.indptr, g.idx, x, dst, arg, keys, g.n, f, g.maxTile); err != nil {
		return err
	}
	if g.nheavy == 0 {
		return nil
	}
	if err := d.launch("agg_max_heavy", g.ntiles, min(256, (f+31)/32*32), g.indptr, g.idx, x, keys, g.heavy, g.tiles, g.nheavy, f, g.maxTile); err != nil {
		return err
	}
	return d.launch("agg_max_finish", d.gridFor(int64(g.nheavy)*int64(f), 256), 256, g.heavy, g.nheavy, keys, dst, arg, f)
}

// ArgHost reads a tensor written as int32 by AggregateMax.
func ArgHost(arg *Tensor) ([]int, error) {
	raw, err := arg.Host()
	if err != nil {
		return nil, err
	}
	out := make([]int, len(raw))
	for i, v := range raw {
		out[i] = int(int32(math.Float32bits(v)))
	}
	return out, nil
}
