package cuda

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// BenchmarkBlockMeanBackwardCPU compares, on the CPU model (2 goroutines,
// the first block of an arxiv-sized batch of the device sampler, 256
// channels), the two ways the backward pass of a mean aggregation over a
// sampled block can reach the sources: build the block's transpose (the
// counting sort of registerBlock) and gather over it, or scatter-add
// along the block's own edges with atomic float adds (no transpose). It
// reports each variant's milliseconds per pass and scatter/transpose.
// This is a model of the work, not of a GPU, whose atomics cost less.
func BenchmarkBlockMeanBackwardCPU(b *testing.B) {
	g, err := graph.ErdosRenyiM(169343, 2332486, 2)
	if err != nil {
		b.Fatal(err)
	}
	seeds := make([]int, 1024)
	for i := range seeds {
		seeds[i] = 160 * i
	}
	blocks, err := data.SampleBlocks(g, seeds, []int{15, 10, 5}, 1)
	if err != nil {
		b.Fatal(err)
	}
	bg := blocks[0].Graph
	ndst, nsrc := bg.NumNodes(), bg.NumSrc()
	rowptr, idx := toInt32(bg.Indptr), toInt32(bg.Indices)
	const f = 256
	grad := tensor.Randn(1, ndst, f).Data()
	dx := make([]float32, nsrc*f)
	const workers = 2
	par := func(n int, fn func(lo, hi int)) {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fn(n*w/workers, n*(w+1)/workers)
			}()
		}
		wg.Wait()
	}
	transpose := func() {
		tptr, tidx, _, tw := emTranspose(rowptr, idx, ndst, nsrc)
		par(nsrc, func(lo, hi int) {
			for u := lo; u < hi; u++ {
				acc := dx[u*f : u*f+f]
				clear(acc)
				for p := tptr[u]; p < tptr[u+1]; p++ {
					gv, w := grad[int(tidx[p])*f:int(tidx[p])*f+f], tw[p]
					for c := range acc {
						acc[c] += w * gv[c]
					}
				}
			}
		})
	}
	scatter := func() {
		clear(dx)
		par(ndst, func(lo, hi int) {
			for v := lo; v < hi; v++ {
				b, e := rowptr[v], rowptr[v+1]
				w := 1 / float32(e-b)
				gv := grad[v*f : v*f+f]
				for k := b; k < e; k++ {
					acc := dx[int(idx[k])*f : int(idx[k])*f+f]
					for c := range acc {
						atomicAddFloat(&acc[c], w*gv[c])
					}
				}
			}
		})
	}
	// Both give the same gradient.
	transpose()
	want := append([]float32(nil), dx...)
	scatter()
	for i, v := range want {
		if math.Abs(float64(dx[i]-v)) > 1e-4*(1+math.Abs(float64(v))) {
			b.Fatalf("value %d: scatter %v, transpose %v", i, dx[i], v)
		}
	}
	var tT, tS time.Duration
	for b.Loop() {
		t0 := time.Now()
		transpose()
		t1 := time.Now()
		scatter()
		tT += t1.Sub(t0)
		tS += time.Since(t1)
	}
	b.ReportMetric(float64(tT.Microseconds())/1e3/float64(b.N), "transpose-ms")
	b.ReportMetric(float64(tS.Microseconds())/1e3/float64(b.N), "scatter-ms")
	b.ReportMetric(float64(tS)/float64(tT), "scatter/transpose")
}

func atomicAddFloat(p *float32, v float32) {
	u := (*uint32)(unsafe.Pointer(p))
	for {
		old := atomic.LoadUint32(u)
		if atomic.CompareAndSwapUint32(u, old, math.Float32bits(math.Float32frombits(old)+v)) {
			return
		}
	}
}

// BenchmarkSampleBlocksHost times the host's share of Device.SampleBlocks
// for one arxiv-sized batch (1024 seeds, fan-outs 15, 10, 5), which runs
// on the loader's goroutine after the download: the blocks' host graphs
// from the downloaded CSRs, by hostBlock (taken as they are) and, as
// before, by graph.NewBipartite over the edge list (sorted again), and
// prepBlock (transpose row counts, degree statistics, heavy rows). It
// reports milliseconds a batch for each and the ratio of the two builds.
func BenchmarkSampleBlocksHost(b *testing.B) {
	g, err := graph.ErdosRenyiM(169343, 2332486, 2)
	if err != nil {
		b.Fatal(err)
	}
	seeds := make([]int, 1024)
	for i := range seeds {
		seeds[i] = 160 * i
	}
	blocks, err := data.SampleBlocks(g, seeds, []int{15, 10, 5}, 1)
	if err != nil {
		b.Fatal(err)
	}
	var sorted, direct, prep time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, bl := range blocks {
			h := bl.Graph
			t0 := time.Now()
			ptr, src := h.Indptr, h.Indices
			rows := make([]int, len(src))
			for v := 0; v+1 < len(ptr); v++ {
				for e := ptr[v]; e < ptr[v+1]; e++ {
					rows[e] = v
				}
			}
			if _, err := graph.NewBipartite(h.NumSrc(), h.NumNodes(), src, rows, nil); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			bg, err := hostBlock(h.NumSrc(), h.NumNodes(), slices.Clone(ptr), slices.Clone(src))
			if err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			prepBlock(bg)
			sorted, direct, prep = sorted+t1.Sub(t0), direct+t2.Sub(t1), prep+time.Since(t2)
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 / float64(b.N) }
	b.ReportMetric(ms(sorted), "ms-newbipartite/op")
	b.ReportMetric(ms(direct), "ms-hostblock/op")
	b.ReportMetric(ms(prep), "ms-prep/op")
	b.ReportMetric(ms(sorted)/max(ms(direct), 1e-6), "newbipartite/hostblock")
}

// productsBatch returns the download of one products-sized batch (a
// graph of products' 2,449,029 nodes, 50 uniform random in-neighbours a
// node, about products' mean degree; 1024 seeds, fan-outs 15, 10, 5) as
// downloadHops lays it out (hop order; rowptr, sources, nodes a hop),
// with the hops' sizes, the seeds and the graph.
func productsBatch(tb testing.TB) (hops []hop, flat []int32, lens, seeds []int, g *graph.Graph) {
	g, seeds = productsGraph(tb)
	blocks, err := data.SampleBlocks(g, seeds, []int{15, 10, 5}, 1)
	if err != nil {
		tb.Fatal(err)
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		hops = append(hops, hop{ndst: b.Graph.NumNodes(), nsrc: b.Graph.NumSrc(), ne: b.Graph.NumEdges()})
		for _, l := range [][]int{b.Graph.Indptr, b.Graph.Indices, b.SrcNodes} {
			flat = append(flat, toInt32(l)...)
			lens = append(lens, len(l))
		}
	}
	return hops, flat, lens, seeds, g
}

// productsGraph returns productsBatch's graph and 1024 seeds.
func productsGraph(tb testing.TB) (*graph.Graph, []int) {
	const n, deg = 2449029, 50
	indptr, indices := make([]int, n+1), make([]int, n*deg)
	r := uint64(88172645463325252)
	for v := range n {
		indptr[v+1] = (v + 1) * deg
		for e := v * deg; e < (v+1)*deg; e++ {
			r ^= r << 13
			r ^= r >> 7
			r ^= r << 17
			indices[e] = int(r % n)
		}
	}
	g, err := graph.FromCSR(n, indptr, indices, nil)
	if err != nil {
		tb.Fatal(err)
	}
	seeds := make([]int, 1024)
	for i := range seeds {
		seeds[i] = 2391 * i
	}
	return g, seeds
}

// BenchmarkSampleBlocksHostProducts times the host's share of
// Device.SampleBlocks for one products-sized batch (productsBatch: 1024
// seeds, fan-outs 15, 10, 5, about 685k nodes and 860k edges, a 7.4 MB
// download), the parts that run on the loader's goroutine around the
// device's work: the seeds' check, widenHops (the int32 download to
// ints) and hostBlocks (host graphs and blockPreps), with the graph kept
// alive, as a loader keeps it (its gigabyte of ints makes Go's collector
// run seldom, so fresh allocations touch new pages). Each iteration runs
// the batch four times: as before (fresh memory for the blocks and the
// preps' scratch) and reusing it (tune.SampleReuse: an arena given back
// as data.NeighborLoader's ReuseBlocks does, and the call's scratch), and
// a third time reusing it with the preps' passes as before (prepFused
// off), a fourth reusing it on one goroutine (tune.SampleParallelHost
// off). It reports milliseconds a batch for each part and way,
// fresh/reused, unfused/fused and serial/parallel.
func BenchmarkSampleBlocksHostProducts(b *testing.B) {
	hops, flat, lens, seeds, g := productsBatch(b)
	var tSeen time.Duration
	var tWiden, tHost [4]time.Duration
	var tptr []prepScratch
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		seen := make(map[int]bool, len(seeds))
		for _, v := range seeds {
			seen[v] = true
		}
		tSeen += time.Since(t0)
		for way := range 4 {
			var arena []int
			var scratch *[]prepScratch
			t1 := time.Now()
			if way > 0 {
				arena, scratch = takeArena(len(flat)), &tptr
			}
			// The third way is the second with the preps' passes as
			// before (prepFused off), the fourth on this goroutine alone
			// (tune.SampleParallelHost off).
			prepFused = way != 2
			tune.SampleParallelHost = way != 3
			host := widenHops(splitLists(flat, lens), arena)
			t2 := time.Now()
			if _, _, _, err := hostBlocks(hops, host, seeds, scratch); err != nil {
				b.Fatal(err)
			}
			t3 := time.Now()
			if arena != nil {
				putArena(arena)
			}
			tWiden[way] += t2.Sub(t1)
			tHost[way] += t3.Sub(t2)
		}
	}
	prepFused, tune.SampleParallelHost = true, true
	runtime.KeepAlive(g)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 / float64(b.N) }
	b.ReportMetric(ms(tSeen), "ms-seeds/op")
	b.ReportMetric(ms(tWiden[0]), "ms-widen-fresh/op")
	b.ReportMetric(ms(tHost[0]), "ms-hostblocks-fresh/op")
	b.ReportMetric(ms(tWiden[1]), "ms-widen-reused/op")
	b.ReportMetric(ms(tHost[1]), "ms-hostblocks-reused/op")
	b.ReportMetric(ms(tHost[2]), "ms-hostblocks-reused-unfused/op")
	b.ReportMetric(ms(tWiden[0]+tHost[0])/max(ms(tWiden[1]+tHost[1]), 1e-6), "fresh/reused")
	b.ReportMetric(ms(tHost[2])/max(ms(tHost[1]), 1e-6), "unfused/fused")
	b.ReportMetric(ms(tWiden[3]), "ms-widen-reused-serial/op")
	b.ReportMetric(ms(tHost[3]), "ms-hostblocks-reused-serial/op")
	b.ReportMetric(ms(tWiden[3]+tHost[3])/max(ms(tWiden[1]+tHost[1]), 1e-6), "serial/parallel")
	b.ReportMetric(float64(len(flat))*4/1e6, "MB-download")
}

// BenchmarkOutDegrees times the sources' out-degree statistics of a
// products-sized batch's three blocks both ways, side by side: counted a
// byte a source (outDegrees, reused scratch) and counted as int32 then
// read by rowsOf, as prepBlockInto did before.
func BenchmarkOutDegrees(b *testing.B) {
	hops, flat, lens, _, _ := productsBatch(b)
	host := widenHops(splitLists(flat, lens), nil)
	var deg8 []uint8
	var cnt []int32
	var t8, t32 time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, h := range hops {
			idx := host[k][1]
			t0 := time.Now()
			outDegrees(idx, h.nsrc, &deg8)
			t1 := time.Now()
			if cap(cnt) < h.nsrc {
				cnt = make([]int32, h.nsrc)
			}
			c := cnt[:h.nsrc]
			clear(c)
			for _, u := range idx {
				c[u]++
			}
			rowsOf(c, false)
			t8, t32 = t8+t1.Sub(t0), t32+time.Since(t1)
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 / float64(b.N) }
	b.ReportMetric(ms(t8), "ms-bytes/op")
	b.ReportMetric(ms(t32), "ms-int32/op")
	b.ReportMetric(ms(t32)/max(ms(t8), 1e-6), "int32/bytes")
}
