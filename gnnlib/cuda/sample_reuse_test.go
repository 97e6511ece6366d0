package cuda

import (
	"runtime"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// The backend offers data.NeighborLoader's ReuseBlocks capability.
var _ interface {
	SampleBlocksReusing(g *graph.Graph, x *tensor.Tensor, seeds, fanouts []int, seed uint64) ([]graph.Block, tensor.Storage, func(), error)
} = (*backend)(nil)

// TestSampleHostUnlocked runs SampleBlocks on a recording driver and
// checks, from inside the call after its download (sampleHostHook), that
// the sampler's lock is free for another goroutine's kernels while this
// call widens its download and builds its host blocks
// (tune.SampleUnlocked), and that it is held there with the switch off,
// as before.
func TestSampleHostUnlocked(t *testing.T) {
	d, _ := openWaitRecorder(t)
	g := sampleGraphForTest(t)
	defer func() { sampleHostHook, tune.SampleUnlocked = nil, true }()
	for _, unlocked := range []bool{true, false} {
		tune.SampleUnlocked = unlocked
		calls, free := 0, 0
		sampleHostHook = func(s *sampleGraph) {
			calls++
			if s.mu.TryLock() {
				free++
				s.mu.Unlock()
			}
		}
		for call := range 3 {
			if _, _, err := d.SampleBlocks(g, nil, []int{0, 5, 17, 4999}, []int{15, 10, 5}, uint64(call)); err != nil {
				t.Fatal(err)
			}
		}
		want := 0
		if unlocked {
			want = calls
		}
		if calls != 3 || free != want {
			t.Errorf("SampleUnlocked %t: the lock was free in %d of %d calls' host work, want %d of 3", unlocked, free, calls, want)
		}
	}
}

// batchDownload is productsBatch's layout for a batch of g: the hops'
// sizes, the int32 download and its lengths.
func batchDownload(t *testing.T, g *graph.Graph, seeds, fanouts []int) ([]hop, []int32, []int, []graph.Block) {
	blocks, err := data.SampleBlocks(g, seeds, fanouts, 4)
	if err != nil {
		t.Fatal(err)
	}
	var hops []hop
	var flat []int32
	var lens []int
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		hops = append(hops, hop{ndst: b.Graph.NumNodes(), nsrc: b.Graph.NumSrc(), ne: b.Graph.NumEdges()})
		for _, l := range [][]int{b.Graph.Indptr, b.Graph.Indices, b.SrcNodes} {
			flat = append(flat, toInt32(l)...)
			lens = append(lens, len(l))
		}
	}
	return hops, flat, lens, blocks
}

// TestHostBlocksReuse: SampleBlocks' host work (widenHops and hostBlocks)
// into an arena given back by the batch before and with the call's prep
// scratch (tune.SampleReuse) gives the blocks data.SampleBlocks gives,
// the same preps as with fresh memory, and allocates under a tenth of
// the bytes the fresh way does (its arrays, one int per entry of the
// download, and the preps' transposed row counts); no list may grow into
// the next (each is capped).
func TestHostBlocksReuse(t *testing.T) {
	g := sampleGraphForTest(t)
	seeds := make([]int, 200)
	for i := range seeds {
		seeds[i] = 25 * i
	}
	hops, flat, lens, want := batchDownload(t, g, seeds, []int{15, 10, 5})
	var tptr []int32
	var arena []int
	build := func(reuse bool) ([]graph.Block, []*blockPrep, uint64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		arena = nil
		var scratch *[]int32
		if reuse {
			arena, scratch = takeArena(flatLen(lens)), &tptr
		}
		blocks, preps, _, err := hostBlocks(hops, widenHops(flat, lens, arena), seeds, scratch)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return blocks, preps, after.TotalAlloc - before.TotalAlloc
	}
	fresh, freshPreps, freshBytes := build(false)
	// Warm: the arena and scratch exist and go back after each batch.
	for range 2 {
		build(true)
		putArena(arena)
	}
	reused, reusedPreps, reusedBytes := build(true)
	defer putArena(arena)
	for i, b := range reused {
		w := want[i]
		if !slices.Equal(b.Graph.Indptr, w.Graph.Indptr) || !slices.Equal(b.Graph.Indices, w.Graph.Indices) ||
			!slices.Equal(b.SrcNodes, w.SrcNodes) || !slices.Equal(b.DstNodes, w.DstNodes) || b.Graph.NumSrc() != w.Graph.NumSrc() {
			t.Fatalf("block %d built in reused memory differs from data.SampleBlocks'", i)
		}
		if !slices.Equal(fresh[i].Graph.Indptr, w.Graph.Indptr) {
			t.Fatalf("block %d built fresh differs", i)
		}
		if cap(b.Graph.Indptr) != len(b.Graph.Indptr) || cap(b.Graph.Indices) != len(b.Graph.Indices) || cap(b.SrcNodes) != len(b.SrcNodes) {
			t.Fatalf("block %d: a list of the arena is not capped at its length", i)
		}
	}
	for i, p := range reusedPreps {
		f := freshPreps[i]
		if p.in != f.in || p.out != f.out || !slices.Equal(p.lists(), f.lists()) || p.ntiles != f.ntiles || p.tntiles != f.tntiles {
			t.Fatalf("hop %d: the prep with scratch differs from the fresh one", i)
		}
	}
	if reusedBytes*10 > freshBytes {
		t.Errorf("host work allocated %d bytes with reused memory, %d fresh: want under a tenth", reusedBytes, freshBytes)
	}
	t.Logf("host work of a %d-entry download: %d bytes allocated fresh, %d reused", len(flat), freshBytes, reusedBytes)
}

// TestDeviceLoaderReuseBlocks runs two data.NeighborLoaders that sample
// on the device with the same options, three sampler goroutines each,
// one with ReuseBlocks, in lockstep over two epochs: every batch of the
// reusing loader (its blocks built in memory the batch before gave back,
// its goroutines' host work outside the sampler's lock) has the other's
// blocks and features, and memory was given back.
func TestDeviceLoaderReuseBlocks(t *testing.T) {
	d := openOrSkip(t)
	g := sampleGraphForTest(t)
	n := g.NumNodes()
	seeds := make([]int, 1500)
	for i := range seeds {
		seeds[i] = (i * 7) % n
	}
	x := tensor.Randn(5, n, 8)
	o := data.NeighborLoaderOptions{BatchSize: 100, Fanouts: []int{15, 10, 5}, Shuffle: true, Seed: 3, Workers: 3, Device: d.Backend(), SampleOnDevice: true}
	ref, err := data.NewNeighborLoader(g, x, nil, seeds, o)
	if err != nil {
		t.Fatal(err)
	}
	o.ReuseBlocks = true
	reu, err := data.NewNeighborLoader(g, x, nil, seeds, o)
	if err != nil {
		t.Fatal(err)
	}
	blockArenas.mu.Lock()
	blockArenas.free = nil
	blockArenas.mu.Unlock()
	for epoch := range 2 {
		a, b := ref.Iter(), reu.Iter()
		batches := 0
		for a.Next() {
			if !b.Next() {
				t.Fatalf("epoch %d: the reusing loader ended after %d batches: %v", epoch, batches, b.Err())
			}
			p, q := a.Batch(), b.Batch()
			for i := range p.Blocks {
				u, v := p.Blocks[i], q.Blocks[i]
				if !slices.Equal(u.Graph.Indptr, v.Graph.Indptr) || !slices.Equal(u.Graph.Indices, v.Graph.Indices) ||
					!slices.Equal(u.SrcNodes, v.SrcNodes) || !slices.Equal(u.DstNodes, v.DstNodes) || u.Graph.NumSrc() != v.Graph.NumSrc() {
					t.Fatalf("epoch %d batch %d: block %d differs with ReuseBlocks", epoch, batches, i)
				}
			}
			if !slices.Equal(p.X.To(nil).Data(), q.X.To(nil).Data()) {
				t.Fatalf("epoch %d batch %d: features differ with ReuseBlocks", epoch, batches)
			}
			batches++
		}
		if b.Next() || a.Err() != nil || b.Err() != nil || batches != ref.Len() {
			t.Fatalf("epoch %d: %d batches of %d, errors %v, %v", epoch, batches, ref.Len(), a.Err(), b.Err())
		}
		a.Close()
		b.Close()
	}
	blockArenas.mu.Lock()
	kept := len(blockArenas.free)
	blockArenas.mu.Unlock()
	if kept == 0 {
		t.Error("no block memory was given back")
	}
}
