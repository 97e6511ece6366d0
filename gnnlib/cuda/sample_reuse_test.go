package cuda

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

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
// the same preps as with fresh memory and as on one goroutine
// (tune.SampleParallelHost off), and allocates under a tenth of
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
	var tptr []prepScratch
	var arena []int
	build := func(reuse bool) ([]graph.Block, []*blockPrep, uint64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		arena = nil
		var scratch *[]prepScratch
		if reuse {
			arena, scratch = takeArena(len(flat)), &tptr
		}
		blocks, preps, _, err := hostBlocks(hops, widenHops(splitLists(flat, lens), arena), seeds, scratch)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return blocks, preps, after.TotalAlloc - before.TotalAlloc
	}
	defer func() { tune.SampleParallelHost = true }()
	tune.SampleParallelHost = false
	serial, serialPreps, _ := build(true)
	putArena(arena)
	serialBlocks := make([][3][]int, len(serial))
	for i, b := range serial {
		serialBlocks[i] = [3][]int{slices.Clone(b.Graph.Indptr), slices.Clone(b.Graph.Indices), slices.Clone(b.SrcNodes)}
	}
	tune.SampleParallelHost = true
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
	for i, b := range reused {
		if !slices.Equal(b.Graph.Indptr, serialBlocks[i][0]) || !slices.Equal(b.Graph.Indices, serialBlocks[i][1]) || !slices.Equal(b.SrcNodes, serialBlocks[i][2]) {
			t.Fatalf("block %d built on several goroutines differs from the one built on one", i)
		}
	}
	for i, p := range reusedPreps {
		if q := serialPreps[i]; p.in != q.in || p.out != q.out || !slices.Equal(p.lists(), q.lists()) {
			t.Fatalf("hop %d: the prep built on several goroutines differs", i)
		}
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

// gateDriver is a recordDriver whose launches wait while gate is closed
// (a device goroutine busy with a long driver call).
type gateDriver struct {
	*recordDriver
	mu   sync.Mutex
	gate chan struct{} // nil: open
}

func (g *gateDriver) launch(kernel string, grid, block [3]int, shared int, args []uint64) error {
	g.mu.Lock()
	c := g.gate
	g.mu.Unlock()
	if c != nil {
		<-c
	}
	return g.recordDriver.launch(kernel, grid, block, shared, args)
}

// TestSampleLaunchesPosted holds the device goroutine in a launch and
// checks that the sampler still queues a whole batch's kernels
// (sampleHops, under its lock) with tune.SamplePostLaunch, where with
// the switch off it waits for the first launch; that after the gate
// opens the kernels run in the order queued; and that a posted launch's
// failure comes back from SampleBlocks (its download) with the next
// call working.
func TestSampleLaunchesPosted(t *testing.T) {
	rec := &recordDriver{}
	drv := &gateDriver{recordDriver: rec}
	d := openOn(t, drv, rec.name())
	defer func() { tune.SamplePostLaunch = true }()
	// The sampler's own switch is what is tested: with tune.AsyncLaunch
	// (on by default) every launch is posted anyway.
	defer func(on bool) { tune.AsyncLaunch = on }(tune.AsyncLaunch)
	tune.AsyncLaunch = false
	g := sampleGraphForTest(t)
	seeds, fanouts := []int{0, 5, 17, 4999}, []int{15, 10, 5}
	// The graph's upload and the pool's buffers, once.
	if _, _, err := d.SampleBlocks(g, nil, seeds, fanouts, 1); err != nil {
		t.Fatal(err)
	}
	s, err := d.sampleGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	// queue is sampleHops as SampleBlocks calls it, its buffers freed.
	queue := func() error {
		sc := s.takeScratch()
		defer s.putScratch(sc)
		s.mu.Lock()
		hops, cnt, err := d.sampleHops(s, sc, seeds, fanouts, 2)
		s.mu.Unlock()
		for i := range hops {
			hops[i].free()
		}
		if cnt != nil {
			cnt.release()
		}
		return err
	}
	for _, posted := range []bool{true, false} {
		tune.SamplePostLaunch = posted
		// The pool's buffers for queue, so that it allocates nothing
		// through the device goroutine below.
		if err := queue(); err != nil {
			t.Fatal(err)
		}
		if err := d.Synchronize(); err != nil {
			t.Fatal(err)
		}
		gate := make(chan struct{})
		drv.mu.Lock()
		drv.gate = gate
		drv.mu.Unlock()
		var l0 int
		if err := d.do(func(driver) error { l0 = len(rec.launches); return nil }); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- queue() }()
		queued := false
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			queued = true
		case <-time.After(map[bool]time.Duration{true: 20 * time.Second, false: 200 * time.Millisecond}[posted]):
		}
		if queued != posted {
			t.Errorf("SamplePostLaunch %t: the batch's kernels were queued while the device goroutine was held: %t", posted, queued)
		}
		drv.mu.Lock()
		drv.gate = nil
		drv.mu.Unlock()
		close(gate)
		if !queued {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		var sorts int
		if err := d.do(func(driver) error {
			for _, l := range rec.launches[l0:] {
				if l.kernel == "sort_rows" {
					sorts++
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if sorts < len(fanouts) {
			t.Errorf("SamplePostLaunch %t: %d hops' kernels ran", posted, sorts)
		}
	}
	tune.SamplePostLaunch = true
	if err := d.do(func(driver) error { rec.fail = "sample_edges"; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.SampleBlocks(g, nil, seeds, fanouts, 3); err == nil || !strings.Contains(err.Error(), "sample_edges") {
		t.Errorf("a failing posted launch: SampleBlocks returned %v, want the launch's error", err)
	}
	if err := d.do(func(driver) error { rec.fail = ""; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.SampleBlocks(g, nil, seeds, fanouts, 4); err != nil {
		t.Errorf("the call after a failed launch: %v", err)
	}
}

// markDriver is a waitDriver with asyncDownloader: its copies to the
// host do not wait (they clear the memory, as the recording driver's
// dtoh does), and each mark reads as passed at its third poll.
type markDriver struct {
	*waitDriver
	asyncCopies, marks, polls int
	live                      map[uintptr]int
}

func (m *markDriver) dtohAsync(dst unsafe.Pointer, _ uintptr, n int64) error {
	m.asyncCopies++
	clear(unsafe.Slice((*byte)(dst), n))
	return nil
}

func (m *markDriver) mark() (uintptr, error) {
	m.marks++
	m.live[uintptr(m.marks)] = 0
	return uintptr(m.marks), nil
}

func (m *markDriver) marked(h uintptr) (bool, error) {
	m.polls++
	n, ok := m.live[h]
	if !ok {
		return false, fmt.Errorf("mark %d polled after unmark", h)
	}
	m.live[h] = n + 1
	return n+1 >= 3, nil
}

func (m *markDriver) unmark(h uintptr) { delete(m.live, h) }

// TestSampleDownloadAsync runs SampleBlocks on a driver that can copy to
// the host without waiting (markDriver): with tune.SampleAsyncDownload
// the batch comes back through one mark (the lists at their bounds;
// two, the counts and then the lists, when the bounds exceed
// asyncBoundBytes), each polled until passed and then freed, and the
// device goroutine never waits for the stream (no waiting copy or sync,
// where the download held it until the stream drained); with the switch
// off it waits, as before. The blocks are the same all three ways.
func TestSampleDownloadAsync(t *testing.T) {
	rec := &recordDriver{}
	wd := &waitDriver{recordDriver: rec}
	drv := &markDriver{waitDriver: wd, live: map[uintptr]int{}}
	d := openOn(t, drv, rec.name())
	defer func() { tune.SampleAsyncDownload = true }()
	g := sampleGraphForTest(t)
	seeds, fanouts := []int{0, 5, 17, 4999}, []int{15, 10, 5}
	if _, _, err := d.SampleBlocks(g, nil, seeds, fanouts, 1); err != nil { // the graph's upload waits
		t.Fatal(err)
	}
	defer func(b int64) { asyncBoundBytes = b }(asyncBoundBytes)
	var got [3][]graph.Block
	for i, c := range []struct {
		async bool
		bound int64
	}{{true, 64 << 20}, {true, 0}, {false, 64 << 20}} {
		async := c.async
		tune.SampleAsyncDownload, asyncBoundBytes = async, c.bound
		// One turn at the bounds, or the counts and then the lists.
		turns := 1
		if c.bound == 0 {
			turns = 2
		}
		var w0, c0, m0, p0 int
		if err := d.do(func(driver) error {
			w0, c0, m0, p0 = len(wd.waits), drv.asyncCopies, drv.marks, drv.polls
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		blocks, _, err := d.SampleBlocks(g, nil, seeds, fanouts, 2)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = blocks
		var waits, copies, marks, polls, live int
		if err := d.do(func(driver) error {
			waits, copies, marks, polls, live = len(wd.waits)-w0, drv.asyncCopies-c0, drv.marks-m0, drv.polls-p0, len(drv.live)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if async && (waits != 0 || marks != turns || polls != 3*turns || copies == 0 || live != 0) {
			t.Errorf("async download (bound %d): %d waits, %d copies, %d marks polled %d times, %d left, want 0 waits, %d marks polled %d times, none left", c.bound, waits, copies, marks, polls, live, turns, 3*turns)
		}
		if !async && (waits == 0 || marks != 0 || copies != 0) {
			t.Errorf("waiting download: %d waits, %d marks, %d copies without a wait", waits, marks, copies)
		}
	}
	for k := 1; k < len(got); k++ {
		for i := range got[0] {
			a, b := got[0][i], got[k][i]
			if !slices.Equal(a.Graph.Indptr, b.Graph.Indptr) || !slices.Equal(a.Graph.Indices, b.Graph.Indices) || !slices.Equal(a.SrcNodes, b.SrcNodes) {
				t.Errorf("block %d differs between downloads 0 and %d", i, k)
			}
		}
	}
}

// TestPrepFused: prepBlockInto's one pass over each direction's degrees
// (prepFused) gives the prep of degreeStatsOf and heavyRowsOf over the
// row pointers, on blocks with heavy rows by destination and by source
// (node 1 is a hub),
// empty blocks and a block with no edges, with and without scratch.
func TestPrepFused(t *testing.T) {
	g := sampleGraphForTest(t)
	blocks, err := data.SampleBlocks(g, []int{0, 1, 5, 17, 4999, 1000}, []int{-1, 40, 3}, 6)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := graph.BipartiteFromCSR(5, []int{0, 0, 0}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	gs := []*graph.Graph{empty}
	for _, b := range blocks {
		gs = append(gs, b.Graph)
	}
	defer func() { prepFused = true }()
	heavyIn, heavyOut := false, false
	var scratch prepScratch
	for i, bg := range gs {
		prepFused = false
		want := prepBlockInto(bg, nil)
		prepFused = true
		for _, tptr := range []*prepScratch{nil, &scratch} {
			got := prepBlockInto(bg, tptr)
			if got.in != want.in || got.out != want.out || got.ntiles != want.ntiles || got.tntiles != want.tntiles ||
				!slices.Equal(got.heavy, want.heavy) || !slices.Equal(got.tiles, want.tiles) ||
				!slices.Equal(got.theavy, want.theavy) || !slices.Equal(got.ttiles, want.ttiles) {
				t.Fatalf("graph %d (scratch %t): fused prep %+v, want %+v", i, tptr != nil, got, want)
			}
		}
		heavyIn, heavyOut = heavyIn || want.in.heavy > 0, heavyOut || want.out.heavy > 0
	}
	if !heavyIn || !heavyOut {
		t.Errorf("heavy rows by destination %t, by source %t: the test covers too little", heavyIn, heavyOut)
	}
}

// TestOutDegrees checks outDegrees, the sources' out-degrees counted a
// byte each, against rowsOf over int32 counts: sources without edges,
// under and over heavyTile, at the byte's limit of 255 and past it (whose
// counts go on in a map), with fresh and reused scratch (the reused one
// dirty and longer than the block).
func TestOutDegrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var deg8 []uint8
	for _, nsrc := range []int{0, 1, 7, 1000, 5000} {
		for _, big := range []int{0, 100, 129, 254, 255, 256, 1000, 70000} {
			var idx []int
			if nsrc > 0 {
				for range 3 * nsrc {
					idx = append(idx, r.IntN(nsrc))
				}
				for range big {
					idx = append(idx, nsrc-1) // one source with big more edges
				}
				for range big / 2 {
					idx = append(idx, nsrc/2)
				}
				r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			}
			cnt := make([]int32, nsrc)
			for _, u := range idx {
				cnt[u]++
			}
			ws, wh, wt, wn := rowsOf(cnt, false)
			for _, scratch := range []*[]uint8{nil, &deg8} {
				s, h, tl, n := outDegrees(idx, nsrc, scratch)
				if s != ws || !slices.Equal(h, wh) || !slices.Equal(tl, wt) || n != wn {
					t.Fatalf("%d sources, %d more edges, scratch %t: %+v %v %v %d, want %+v %v %v %d", nsrc, big, scratch != nil, s, h, tl, n, ws, wh, wt, wn)
				}
			}
			for i := range deg8 {
				deg8[i] = 0xAA // what a longer block left behind
			}
		}
	}
}

// TestWiden: widen gives every value, in order, in chunks on several
// goroutines (tune.SampleParallelHost) and on one, for lengths around
// the chunk size and a products-sized download.
func TestWiden(t *testing.T) {
	defer func() { tune.SampleParallelHost = true }()
	for _, n := range []int{0, 1, 1<<18 - 1, 1 << 18, 1<<19 + 3, 3<<20 + 7} {
		src := make([]int32, n)
		for i := range src {
			src[i] = int32(i*7919) - 1<<30
		}
		for _, par := range []bool{true, false} {
			tune.SampleParallelHost = par
			dst := make([]int, n+1)
			dst[n] = -1
			widen(dst[:n], src)
			for i, v := range src {
				if dst[i] != int(v) {
					t.Fatalf("n %d, parallel %t: dst[%d] = %d, want %d", n, par, i, dst[i], v)
				}
			}
			if dst[n] != -1 {
				t.Fatalf("n %d: widen wrote past its end", n)
			}
		}
	}
}

// TestBoundLists lays a batch of data.SampleBlocks' blocks out as
// downloadAsync's one turn copies it (the counts, then each list at its
// hop's bound from sampleBounds, the slots past the list garbage) and
// checks that boundLists cuts out exactly the blocks' lists, capped.
func TestBoundLists(t *testing.T) {
	g := sampleGraphForTest(t)
	seeds, fanouts := []int{0, 5, 17, 4999, 1000, 1}, []int{15, 10, 5}
	blocks, err := data.SampleBlocks(g, seeds, fanouts, 8)
	if err != nil {
		t.Fatal(err)
	}
	bdst, bne, bsrc := sampleBounds(len(seeds), g.NumNodes(), g.NumEdges(), 0, fanouts)
	nh := len(fanouts)
	ncnt := 2*nh + 1
	all := garbage(ncnt)
	var hops []hop
	var lens []int
	var want [][]int32
	for k := range nh {
		b := blocks[nh-1-k]
		h := hop{bdst: int(bdst[k]), bne: int(bne[k]), bsrc: int(bsrc[k])}
		hops = append(hops, h)
		for j, l := range [][]int{b.Graph.Indptr, b.Graph.Indices, b.SrcNodes} {
			bound := []int{h.bdst + 1, h.bne, h.bsrc}[j]
			if len(l) > bound {
				t.Fatalf("hop %d list %d: %d values over the bound %d", k, j, len(l), bound)
			}
			all = append(all, toInt32(l)...)
			all = append(all, garbage(bound-len(l))...)
			lens = append(lens, len(l))
			want = append(want, toInt32(l))
		}
	}
	got := boundLists(all, hops, lens, ncnt)
	if len(got) != len(want) {
		t.Fatalf("%d lists, want %d", len(got), len(want))
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) || cap(got[i]) != len(got[i]) {
			t.Fatalf("list %d (hop %d): %d values (cap %d), differs from the block's", i, i/3, len(got[i]), cap(got[i]))
		}
	}
}
