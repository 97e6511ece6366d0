package cuda

import (
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

// The CPU emulation of sample.cu: each function is one kernel of
// kernels/sample.cu written out in Go, thread loop for thread loop, and
// emulateSampleBlocks runs them in the order sampleHops and registerBlock
// launch them. TestSampleKernelsEmulated checks that this sequence gives
// data.SampleBlocks' blocks and a transpose with the right rows and mean
// weights, on the CPU; TestDeviceSampleBlocks checks the kernels
// themselves against data.SampleBlocks on a GPU.

func emScan(in []int32, n int) []int32 {
	out := make([]int32, n+1)
	for i := 0; i < n; i++ {
		out[i+1] = out[i] + in[i]
	}
	return out
}

func emSampleCounts(indptr, nodes []int32, ndst, fanout int) []int32 {
	counts := make([]int32, ndst)
	for i := 0; i < ndst; i++ {
		v := nodes[i]
		d := indptr[v+1] - indptr[v]
		switch {
		case d == 0:
			counts[i] = 0
		case fanout < 0:
			counts[i] = d
		default:
			counts[i] = int32(fanout)
		}
	}
	return counts
}

func emSampleEdges(indptr, indices, nodes, rowptr, src, flag []int32, ndst, fanout int, seed uint64) {
	for i := 0; i < ndst; i++ {
		v := nodes[i]
		beg := indptr[v]
		d := uint64(indptr[v+1] - beg)
		o, k := rowptr[i], rowptr[i+1]-rowptr[i]
		for j := int32(0); j < k; j++ {
			r := j
			if fanout >= 0 {
				h := data.HopSeed(seed, i*fanout+int(j))
				r = int32(((h >> 32) * d) >> 32)
			}
			u := indices[beg+r]
			src[o+j] = u
			flag[u] = 1
		}
	}
}

func emMarkDst(nodes, flag, loc []int32, ndst int) {
	for i := 0; i < ndst; i++ {
		flag[nodes[i]] = 0
		loc[nodes[i]] = int32(i)
	}
}

func emCompact(flag, pos, loc, srcnodes []int32, n, ndst int) {
	for v := 0; v < n; v++ {
		if flag[v] != 0 {
			k := int32(ndst) + pos[v]
			loc[v] = k
			srcnodes[k] = int32(v)
			flag[v] = 0
		}
	}
}

func emRelabel(idx, loc []int32) {
	for e := range idx {
		idx[e] = loc[idx[e]]
	}
}

func emSortRows(rowptr, idx []int32, n int) {
	for v := 0; v < n; v++ {
		b, e := rowptr[v], rowptr[v+1]
		for k := b + 1; k < e; k++ {
			x, j := idx[k], k-1
			for j >= b && idx[j] > x {
				idx[j+1] = idx[j]
				j--
			}
			idx[j+1] = x
		}
	}
}

// emTranspose is block_hist, scanInts, the cursor's refill and
// block_transpose; the rows are scattered in reverse order of the
// destinations, one of the orders the atomics may give.
func emTranspose(rowptr, idx []int32, ndst, nsrc int) (tptr, tidx []int32, w, tw []float32) {
	cnt := make([]int32, nsrc)
	for _, u := range idx {
		cnt[u]++
	}
	tptr = emScan(cnt, nsrc)
	clear(cnt)
	tidx = make([]int32, len(idx))
	w, tw = make([]float32, len(idx)), make([]float32, len(idx))
	for v := ndst - 1; v >= 0; v-- {
		b, e := rowptr[v], rowptr[v+1]
		var m float32
		if e > b {
			m = 1 / float32(e-b)
		}
		for k := b; k < e; k++ {
			u := idx[k]
			p := tptr[u] + cnt[u]
			cnt[u]++
			tidx[p] = int32(v)
			w[k], tw[p] = m, m
		}
	}
	return
}

type emBlock struct {
	ndst, nsrc  int
	rowptr, idx []int32
	nodes       []int32
	tptr, tidx  []int32
	w, tw       []float32
}

// emulateSampleBlocks runs the emulated kernels as sampleHops does, hop by
// hop, with the node-sized flag (zero between calls) and loc arrays.
func emulateSampleBlocks(g *graph.Graph, flag []int32, seeds, fanouts []int, seed uint64) []emBlock {
	n := g.NumNodes()
	indptr, indices := toInt32(g.Indptr), toInt32(g.Indices)
	loc := make([]int32, n)
	dst := toInt32(seeds)
	var out []emBlock
	for k, fan := range fanouts {
		ndst := len(dst)
		rowptr := emScan(emSampleCounts(indptr, dst, ndst, fan), ndst)
		idx := make([]int32, rowptr[ndst])
		emSampleEdges(indptr, indices, dst, rowptr, idx, flag, ndst, fan, data.HopSeed(seed, k))
		emMarkDst(dst, flag, loc, ndst)
		pos := emScan(flag, n)
		nsrc := ndst + int(pos[n])
		nodes := make([]int32, nsrc)
		copy(nodes, dst)
		emCompact(flag, pos, loc, nodes, n, ndst)
		emRelabel(idx, loc)
		emSortRows(rowptr, idx, ndst)
		b := emBlock{ndst: ndst, nsrc: nsrc, rowptr: rowptr, idx: idx, nodes: nodes}
		b.tptr, b.tidx, b.w, b.tw = emTranspose(rowptr, idx, ndst, nsrc)
		out = append(out, b)
		dst = nodes
	}
	return out
}

func TestSampleKernelsEmulated(t *testing.T) {
	g := sampleGraphForTest(t)
	flag := make([]int32, g.NumNodes())
	seeds := []int{0, 5, 17, 4999, 1000, 42, 7, 300, 1}
	for _, fanouts := range [][]int{{15, 10, 5}, {-1, 3}, {0, 2}, {4}} {
		for _, seed := range []uint64{1, 9} {
			got := emulateSampleBlocks(g, flag, seeds, fanouts, seed)
			if slices.ContainsFunc(flag, func(f int32) bool { return f != 0 }) {
				t.Fatal("the flag array is not all zero after a call")
			}
			want, err := data.SampleBlocks(g, seeds, fanouts, seed)
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range got {
				w := want[len(got)-1-i]
				bg := w.Graph
				if !slices.Equal(b.rowptr, toInt32(bg.Indptr)) || !slices.Equal(b.idx, toInt32(bg.Indices)) ||
					!slices.Equal(b.nodes, toInt32(w.SrcNodes)) || b.nsrc != bg.NumSrc() {
					t.Fatalf("fan-outs %v seed %d hop %d: the emulated kernels' block differs from data.SampleBlocks'", fanouts, seed, i)
				}
				tr := bg.Transpose()
				if !slices.Equal(b.tptr, toInt32(tr.Indptr)) {
					t.Fatalf("hop %d: transpose indptr differs from the host transpose's", i)
				}
				for u := 0; u < b.nsrc; u++ {
					row := slices.Clone(b.tidx[b.tptr[u]:b.tptr[u+1]])
					slices.Sort(row)
					if !slices.Equal(row, toInt32(tr.Neighbors(u))) {
						t.Fatalf("hop %d: transposed row %d = %v, host %v", i, u, row, tr.Neighbors(u))
					}
					for p := b.tptr[u]; p < b.tptr[u+1]; p++ {
						v := b.tidx[p]
						if b.tw[p] != 1/float32(b.rowptr[v+1]-b.rowptr[v]) {
							t.Fatalf("hop %d: transposed weight %v of %d -> %d", i, b.tw[p], u, v)
						}
					}
				}
			}
		}
	}
}
