package quant

import (
	"fmt"
	"slices"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// This file is the integer inference path of a GCN. A layer takes INT8
// codes and produces either the next layer's INT8 codes or float32
// logits, in two passes over the nodes and with no float32 activation in
// between:
//
//  1. per node v, the row (x·W)_v of INT32 sums from the sparse or dense
//     GEMM is requantized at once, while in cache, to the codes of
//     D^−1/2·x·W, which are stored as 16-bit lanes (see aggregateLanes);
//  2. per node v, the lanes of its in-neighbours are summed in INT32 and
//     the sums are scaled by D^−1/2_v and the aggregation scale, the bias
//     is added, ReLU applied, and the result quantized with the next
//     layer's input parameters (or written as float32 after the last
//     layer).
//
// The arithmetic of each element is the same as that of the unfused
// composition (GEMM, requantize, AggregateInt8, dequantize, quantize), so
// the results are identical to it bit for bit (TestFusedGCNMatchesUnfused).

// codes is an INT8 activation matrix ready for a layer's GEMM: a sparse
// (CSR) or dense rows×k matrix of codes and the scale of each row, or one
// scale for all rows when the parameters are static (the zero-point
// correction of static affine codes is the layer's corr).
type codes struct {
	rows, k         int
	indptr, indices []int // CSR structure; nil when dense
	q               []int8
	scale           []float32
	// uniform marks the sparse rows whose codes are all equal (a binary
	// or row-normalised bag of words): their product is a sum of weight
	// rows times one code.
	uniform []bool
}

// rowScale returns the scale of row i.
func (c *codes) rowScale(i int) float32 { return c.scale[min(i, len(c.scale)-1)] }

// work estimates the multiply-adds of a product with n output columns.
func (c *codes) work(n int) int {
	if c.indptr != nil {
		return c.indptr[c.rows] * n
	}
	return c.rows * c.k * n / lanes
}

// productRows streams the rows [lo, hi) of c·W to emit for the layer l.
func (c *codes) productRows(l *qlayer, lo, hi int, emit func(i int, acc []int32)) {
	switch {
	case c.indptr == nil:
		gemmRows(c.q, l.packed, lo, hi, emit)
	case c.uniform == nil || l.lanes == nil:
		sparseGEMMRows(c.indptr, c.indices, c.q, l.packed, lo, hi, nil, emit)
	default:
		c.uniformRows(l, lo, hi, emit)
	}
}

// uniformRows is productRows for sparse codes with uniform rows: the sum
// of the weight rows a row selects is taken four columns per addition on
// the 16-bit lanes of l.lanes and multiplied by the row's one code at the
// end. Other rows go through the multiplying kernel.
func (c *codes) uniformRows(l *qlayer, lo, hi int, emit func(i int, acc []int32)) {
	n := l.packed.N
	wpr := laneWords(n)
	sum := make([]int32, wpr*aggLanes)
	acc := make([]int64, wpr)
	scratch := make([]int32, rowScratch(l.packed))
	for i := lo; i < hi; i++ {
		p0, p1 := c.indptr[i], c.indptr[i+1]
		if !c.uniform[i] {
			sparseGEMMRows(c.indptr, c.indices, c.q, l.packed, i, i+1, scratch, emit)
			continue
		}
		clear(sum)
		if p1 > p0 {
			sumLanes(sum, acc, l.lanes, wpr, c.indices[p0:p1])
			code := int32(c.q[p0])
			for j := range sum {
				sum[j] *= code
			}
		}
		emit(i, sum[:n])
	}
}

// dynamicCodes quantizes each row of a 2-D x, sparse or dense, with its
// own symmetric scale max|row|/127.
func dynamicCodes(x *tensor.Tensor) *codes {
	rows, k := x.Size(0), x.Size(1)
	c := &codes{rows: rows, k: k}
	if x.IsSparse() {
		var vals []float32
		c.indptr, c.indices, vals = x.CSR()
		c.q, c.scale = quantizeRows(c.indptr, vals)
		c.uniform = make([]bool, rows)
		for i := range c.uniform {
			row := c.q[c.indptr[i]:c.indptr[i+1]]
			c.uniform[i] = !slices.ContainsFunc(row, func(q int8) bool { return q != row[0] })
		}
		return c
	}
	indptr := make([]int, rows+1)
	for i := range indptr {
		indptr[i] = i * k
	}
	c.q, c.scale = quantizeRows(indptr, x.Data())
	return c
}

// PrepareInput quantizes the input features x of a converted GCN or GAT
// once, so that Forward on the same tensor (the fixed features of a
// transductive task) skips that step. x must not be modified afterwards:
// Forward recognises it by identity, not by value; call PrepareInput
// again after changing it. Only one input is remembered. PrepareInput
// must not run concurrently with Forward.
//
// The float32 model has nothing to precompute in its place (its first
// product reads x as it is), so a comparison of inference times stays
// fair; both share the graph's cached normalisation.
func (m *GNN) PrepareInput(x *tensor.Tensor) error {
	if !m.converted {
		return ErrNotConverted
	}
	l := m.layers[0]
	if l.float {
		m.prepared.x, m.prepared.c = nil, nil
		return nil
	}
	if x.Dims() != 2 || x.Size(1) != l.packed.K {
		return fmt.Errorf("quant: PrepareInput: input %v for %d inputs: %w", x.Shape(), l.packed.K, ErrRange)
	}
	m.prepared.x, m.prepared.c = x, dynamicCodes(x)
	return nil
}

// inputCodes returns the codes of the first integer layer's input x.
func (m *GNN) inputCodes(l *qlayer, x *tensor.Tensor) (*codes, error) {
	if x.Dims() != 2 || x.Size(1) != l.packed.K {
		return nil, fmt.Errorf("quant: layer %s: input %v for %d inputs: %w", l.name, x.Shape(), l.packed.K, ErrRange)
	}
	if l.dynamicInput {
		if x == m.prepared.x {
			return m.prepared.c, nil
		}
		return dynamicCodes(x), nil
	}
	return &codes{rows: x.Size(0), k: x.Size(1), q: l.quantizeInput(x.Data()), scale: []float32{l.act.Scale[0]}}, nil
}

// gcnLayer runs GCN layer i in integers on the codes in. It returns the
// codes of the input of next (an integer layer) or, when next is nil, the
// float32 output, with ReLU when relu.
func (m *GNN) gcnLayer(info *gcnGraph, i int, in *codes, next *qlayer, relu bool) (*tensor.Tensor, *codes) {
	l := m.layers[i]
	g := info.norm
	n, f := g.NumNodes(), l.packed.N
	wpr := laneWords(f)
	d := info.dinv.Data()
	sAgg := m.agg[i].Scale[0]
	inv := 1 / sAgg

	// Pass 1: D^−1/2·x·W requantized from the GEMM's rows into lanes.
	lanes := make([]int64, n*wpr)
	grain := n
	if in.work(f) >= 1<<16 {
		grain = max(1, n/(4*tensor.Threads()))
	}
	parallelFor(n, grain, func(lo, hi int) {
		in.productRows(l, lo, hi, func(v int, acc []int32) {
			requantLanes(lanes[v*wpr:v*wpr+wpr], acc, l.corr, l.wScale, in.rowScale(v)*d[v]*inv)
		})
	})

	// Pass 2: sums over in-neighbours, then scale, bias, ReLU and either
	// the next layer's quantization or float32.
	grain = n
	if (g.NumEdges()+n)*f >= 1<<15 {
		grain = max(1, n/(4*tensor.Threads()))
	}
	b := l.b.Data()[:f]
	if next == nil {
		out := make([]float32, n*f)
		parallelFor(n, grain, func(lo, hi int) {
			aggregateLanes(g, lanes, wpr, f, lo, hi, func(v int, sum []int32) {
				s := d[v] * sAgg
				row := out[v*f : v*f+f]
				for j, a := range sum {
					x := float32(a)*s + b[j]
					if relu && x < 0 {
						x = 0
					}
					row[j] = x
				}
			})
		})
		return tensor.Wrap(out, n, f), nil
	}
	p := next.act
	ninv := 1 / p.Scale[0]
	z := p.Zero[0] - p.offset()
	qlo, qhi := p.QMin()-p.offset(), p.QMax()-p.offset()
	if relu {
		// ReLU as the lower clamp: rounding is monotonic and maps 0 to 0,
		// so round(max(x, 0)/S)+Z = max(round(x/S)+Z, Z); a branch on the
		// sign of x would mispredict half the time.
		qlo = max(qlo, z)
	}
	nq := make([]int8, n*f)
	parallelFor(n, grain, func(lo, hi int) {
		aggregateLanes(g, lanes, wpr, f, lo, hi, func(v int, sum []int32) {
			requantRow(nq[v*f:v*f+f], sum, b, d[v]*sAgg, ninv, z, qlo, qhi)
		})
	})
	return nil, &codes{rows: n, k: f, q: nq, scale: []float32{p.Scale[0]}}
}

// requantRow writes the codes of (sum[j]·s + b[j])/S, with 1/S = inv,
// zero point z and codes clamped to [lo, hi], into dst. Kept out of line
// so that its loop has the registers to itself.
//
//go:noinline
func requantRow(dst []int8, sum []int32, b []float32, s, inv float32, z, lo, hi int32) {
	n := len(dst)
	sum, b = sum[:n], b[:n]
	for j := range dst {
		dst[j] = int8(roundClamp((float32(sum[j])*s+b[j])*inv, z, lo, hi))
	}
}
