package quant

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// forwardUnfused is the reference of the fused integer GCN: each step as
// a separate pass over whole matrices (GEMM into INT32, requantization,
// AggregateInt8, dequantization to float32, and the next layer's
// quantization of that float32 matrix).
func (m *GNN) forwardUnfused(g *graph.Graph, x *tensor.Tensor) (*tensor.Tensor, error) {
	info, err := gcnInfo(g, nil)
	if err != nil {
		return nil, err
	}
	h := x
	for i, l := range m.layers {
		last := i+1 == len(m.layers)
		if l.float {
			h = m.floatLayer(g, info, i, h, last)
			continue
		}
		acc, sx, err := l.matmulAcc(h)
		if err != nil {
			return nil, err
		}
		h = m.aggregateUnfused(info, l, acc, sx, i, !last)
	}
	return h, nil
}

// aggregateUnfused computes Â·(x·W) + b from the INT32 accumulators of
// x·W: requantize D^−1/2·x·W, sum over in-neighbours in INT32, then scale
// by D^−1/2 and add the bias (and ReLU between layers).
func (m *GNN) aggregateUnfused(info *gcnGraph, l *qlayer, acc []int32, sx []float32, i int, relu bool) *tensor.Tensor {
	f := l.packed.N
	n := len(acc) / f
	p := m.agg[i]
	d := info.dinv.Data()
	zq := make([]int8, len(acc))
	inv := 1 / p.Scale[0]
	for v := 0; v < n; v++ {
		s := sx[min(v, len(sx)-1)] * d[v] * inv
		for j, a := range acc[v*f : v*f+f] {
			zq[v*f+j] = int8(min(max(roundToInt32(float32(a+l.corr[j])*s*l.wScale[j]), -127), 127))
		}
	}
	sum := make([]int32, len(acc))
	AggregateInt8Ref(info.norm, sum, zq, f)
	out := make([]float32, len(sum))
	b := l.b.Data()
	for v := 0; v < n; v++ {
		s := d[v] * p.Scale[0]
		for j, a := range sum[v*f : v*f+f] {
			x := float32(a)*s + b[j]
			if relu && x < 0 {
				x = 0
			}
			out[v*f+j] = x
		}
	}
	return tensor.Wrap(out, n, f)
}

// TestFusedGCNMatchesUnfused checks that the fused integer GCN gives the
// unfused reference's logits bit for bit: binary sparse, weighted sparse
// and dense features, a hub whose in-degree exceeds one lane chunk (the
// 16-bit lanes must be split off in time), symmetric and affine
// activations, mixed precision, INT4 weights, one and three threads, with
// and without PrepareInput.
func TestFusedGCNMatchesUnfused(t *testing.T) {
	const n, feats = 700, 40
	g, err := graph.ErdosRenyi(n, 6.0/n, 1)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := g.Edges()
	for v := 1; v < 600; v++ { // node 0 becomes a hub of in-degree > 600
		src, dst = append(src, v), append(dst, 0)
	}
	if g, err = graph.FromEdges(n, src, dst); err != nil {
		t.Fatal(err)
	}
	g = g.Coalesce()
	rng := tensor.NewRNG(3)
	dense := tensor.Rand(4, n, feats)
	mask := make([]float32, n*feats)
	for i := range mask {
		if rng.Float32() < 0.1 {
			mask[i] = 1
		}
	}
	sparse := tensor.SparseFromDense(tensor.Wrap(mask, n, feats))
	// Sparse rows of unequal values take the multiplying kernel; the
	// first row stays binary, so both kinds of rows meet in one input.
	weighted := slices.Clone(mask)
	for i := feats; i < len(weighted); i++ {
		weighted[i] *= 1 + rng.Float32()
	}
	sparseWeighted := tensor.SparseFromDense(tensor.Wrap(weighted, n, feats))
	for _, hidden := range []int{5, 16, 29} {
		nn.Seed(int64(hidden))
		model := nn.NewGCN(feats, hidden, 6)
		model.SetTraining(false)
		for _, cfg := range []Config{{}, {SymmetricActivations: true}, {KeepFirst: true}, {KeepLast: true}, {Bits: 4}} {
			for _, x := range []*tensor.Tensor{sparse, sparseWeighted, dense} {
				q, err := NewGNN(model, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if err := q.Calibrate(g, x); err != nil {
					t.Fatal(err)
				}
				if err := q.Convert(); err != nil {
					t.Fatal(err)
				}
				want, err := q.forwardUnfused(g, x)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("hidden %d, %v, sparse %t", hidden, cfg, x.IsSparse())
				for _, th := range []int{1, 3} {
					for _, prepare := range []bool{false, true} {
						prev := tensor.SetThreads(th)
						if prepare {
							if err := q.PrepareInput(x); err != nil {
								t.Fatal(err)
							}
						}
						got, err := q.Forward(g, x)
						tensor.SetThreads(prev)
						if err != nil {
							t.Fatal(err)
						}
						if !slices.Equal(got.Data(), want.Data()) {
							t.Errorf("Forward(%s, %d threads, prepared %t) differs from the unfused reference", name, th, prepare)
						}
					}
				}
			}
		}
	}
}

func TestAggregateLanesMatchesReference(t *testing.T) {
	// A star whose centre has in-degree 1000 > laneChunk, all codes ±127:
	// the worst case for the 16-bit lanes.
	const n = 1001
	var src, dst []int
	for v := 1; v < n; v++ {
		src, dst = append(src, v, 0), append(dst, 0, v)
	}
	g, err := graph.FromEdges(n, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []int{1, 3, 4, 7, 16, 21} {
		for _, c := range []int8{127, -127} {
			x := make([]int8, n*f)
			for i := range x {
				x[i] = c
			}
			want := make([]int32, n*f)
			AggregateInt8Ref(g, want, x, f)
			wpr := laneWords(f)
			packed := make([]int64, n*wpr)
			q := make([]int32, f)
			for v := 0; v < n; v++ {
				for j := range q {
					q[j] = int32(x[v*f+j])
				}
				packLanes(packed[v*wpr:v*wpr+wpr], q)
			}
			got := make([]int32, n*f)
			aggregateLanes(g, packed, wpr, f, 0, n, func(v int, sum []int32) { copy(got[v*f:v*f+f], sum) })
			if !slices.Equal(got, want) {
				t.Errorf("aggregateLanes(star %d, f=%d, codes %d) differs from the reference", n, f, c)
			}
		}
	}
}
