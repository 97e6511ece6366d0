package quant

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// AggregateInt8 sums INT8 node features over in-neighbours with INT32
// accumulation: dst[v, :] = Σ_{u→v} x[u, :] for the n×f matrix x
// (n = g.NumSrc()) into dst (g.NumNodes()×f, overwritten). Edge weights
// are not applied: summing integers is exact only at one scale, so
// weights that factor into per-node scales (GCN's D^−1/2·Â·D^−1/2) are
// folded into the scales around the call instead — see QGCN. The sum of
// up to 2^24 int8 values fits in int32, so no degree can overflow it.
// Rows are split over tensor.Threads() goroutines.
func AggregateInt8(g *graph.Graph, dst []int32, x []int8, f int) {
	n := g.NumNodes()
	if len(dst) != n*f || len(x) != g.NumSrc()*f {
		panic(fmt.Errorf("quant: AggregateInt8: dst %d, x %d for %d×%d nodes, %d features: %w", len(dst), len(x), n, g.NumSrc(), f, ErrRange))
	}
	// Small graphs stay on one goroutine: starting one costs microseconds.
	grain := n
	if (g.NumEdges()+n)*f >= 1<<15 {
		grain = max(1, n/(4*tensor.Threads()))
	}
	parallelFor(n, grain, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			row := dst[v*f : v*f+f : v*f+f]
			clear(row)
			for _, u := range g.Indices[g.Indptr[v]:g.Indptr[v+1]] {
				src := x[u*f : u*f+f : u*f+f]
				for j, q := range src {
					row[j] += int32(q)
				}
			}
		}
	})
}

// AggregateInt8Ref is the naive reference of AggregateInt8.
func AggregateInt8Ref(g *graph.Graph, dst []int32, x []int8, f int) {
	clear(dst)
	src, dstNodes := g.Edges()
	for e := range src {
		for j := 0; j < f; j++ {
			dst[dstNodes[e]*f+j] += int32(x[src[e]*f+j])
		}
	}
}

// The fused GCN layer sums INT8 codes over in-neighbours four at a time:
// each row of f codes is stored as laneWords(f) int64 words of four
// signed 16-bit lanes (q0 + q1·2^16 + q2·2^32 + q3·2^48), so one 64-bit
// addition adds four features. As in GEMMInt8's 21-bit lanes, two's
// complement keeps each lane exact while its running sum stays within
// ±2^15, which holds for laneChunk = 256 codes of at most 127 in
// magnitude; after every laneChunk neighbours the lanes are split off into
// int32 sums.
const (
	aggLanes  = 4
	laneChunk = 256
)

// laneWords returns the number of words that hold f codes as 16-bit lanes.
func laneWords(f int) int { return (f + aggLanes - 1) / aggLanes }

// packLanes stores the codes q (at most aggLanes·len(dst), each within
// ±127) as 16-bit lanes of dst; missing codes are zero.
func packLanes(dst []int64, q []int32) {
	for w := range dst {
		var word int64
		for l := 0; l < aggLanes && w*aggLanes+l < len(q); l++ {
			word += int64(q[w*aggLanes+l]) << (16 * l)
		}
		dst[w] = word
	}
}

// requantLanes stores the symmetric INT8 codes of (acc[j]+corr[j])·s·ws[j]
// as 16-bit lanes of dst (laneWords(len(acc)) words): the requantization
// of one row of a GEMM straight into the form that aggregateLanes sums.
func requantLanes(dst []int64, acc, corr []int32, ws []float32, s float32) {
	n := len(acc)
	corr, ws = corr[:n], ws[:n]
	j := 0
	for w := range dst {
		if j+aggLanes <= n {
			a, c, sc := acc[j:j+4:j+4], corr[j:j+4:j+4], ws[j:j+4:j+4]
			q0 := round127(float32(a[0]+c[0]) * s * sc[0])
			q1 := round127(float32(a[1]+c[1]) * s * sc[1])
			q2 := round127(float32(a[2]+c[2]) * s * sc[2])
			q3 := round127(float32(a[3]+c[3]) * s * sc[3])
			dst[w] = int64(q0) + int64(q1)<<16 + int64(q2)<<32 + int64(q3)<<48
			j += aggLanes
			continue
		}
		var word int64
		for l := 0; j < n; l, j = l+1, j+1 {
			word += int64(round127(float32(acc[j]+corr[j])*s*ws[j])) << (16 * l)
		}
		dst[w] = word
	}
}

// splitLanes adds the four signed 16-bit lanes of word to dst[0:4].
func splitLanes(dst *[aggLanes]int32, word int64) {
	l0 := int64(int16(word))
	word = (word - l0) >> 16
	l1 := int64(int16(word))
	word = (word - l1) >> 16
	l2 := int64(int16(word))
	l3 := (word - l2) >> 16
	dst[0] += int32(l0)
	dst[1] += int32(l1)
	dst[2] += int32(l2)
	dst[3] += int32(l3)
}

// aggregateLanes sums the lane-packed rows x (wpr words per node) over the
// in-neighbours of each node v in [lo, hi) of g and passes the f int32
// sums of v to emit; the slice is reused once emit returns. It computes
// what AggregateInt8 does with a quarter of the additions.
func aggregateLanes(g *graph.Graph, x []int64, wpr, f, lo, hi int, emit func(v int, sum []int32)) {
	sum := make([]int32, wpr*aggLanes)
	acc := make([]int64, wpr)
	for v := lo; v < hi; v++ {
		clear(sum)
		sumLanes(sum, acc, x, wpr, g.Indices[g.Indptr[v]:g.Indptr[v+1]])
		emit(v, sum[:f])
	}
}

// sumLanes adds Σ_{u ∈ rows} x[u] to sum (aggLanes·wpr int32 values),
// where each x[u] is a lane-packed row of wpr words; acc is scratch of wpr
// words.
func sumLanes(sum []int32, acc, x []int64, wpr int, rows []int) {
	acc = acc[:wpr]
	for c0 := 0; c0 < len(rows); c0 += laneChunk {
		chunk := rows[c0:min(c0+laneChunk, len(rows))]
		w0 := 0
		for ; w0+4 <= wpr; w0 += 4 {
			acc[w0], acc[w0+1], acc[w0+2], acc[w0+3] = sumWords4(x, chunk, wpr, w0)
		}
		for ; w0 < wpr; w0++ {
			acc[w0] = sumWords1(x, chunk, wpr, w0)
		}
		splitAllLanes(sum, acc)
	}
}

// sumWords4 returns Σ_{u ∈ rows} x[u·wpr+w0+i] for i = 0..3. It is kept out
// of line so that the four sums stay in registers: inlined into sumLanes,
// the compiler spills them to the stack on every step.
//
//go:noinline
func sumWords4(x []int64, rows []int, wpr, w0 int) (a0, a1, a2, a3 int64) {
	for _, u := range rows {
		src := x[u*wpr+w0 : u*wpr+w0+4 : u*wpr+w0+4]
		a0 += src[0]
		a1 += src[1]
		a2 += src[2]
		a3 += src[3]
	}
	return
}

// sumWords1 returns Σ_{u ∈ rows} x[u·wpr+w0].
func sumWords1(x []int64, rows []int, wpr, w0 int) (a int64) {
	for _, u := range rows {
		a += x[u*wpr+w0]
	}
	return a
}

// splitAllLanes adds the lanes of the words acc to sum.
//
//go:noinline
func splitAllLanes(sum []int32, acc []int64) {
	sum = sum[:len(acc)*aggLanes]
	for w, word := range acc {
		splitLanes((*[aggLanes]int32)(sum[w*aggLanes:]), word)
	}
}
