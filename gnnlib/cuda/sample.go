package cuda

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/data"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// sampleGraph is a host graph's CSR on the device for SampleBlocks, with
// the sampler's node-sized scratch: flag (all zero between calls) and loc
// (a node's index among the current hop's sources), which mu guards
// while a call queues its kernels.
type sampleGraph struct {
	mu                     sync.Mutex
	dev                    *Device
	n                      int
	indptr, idx, flag, loc *buffer
	// ne and maxDeg are the graph's edges and largest in-degree, for
	// sampleBounds.
	ne, maxDeg int
	// spare holds the per-call scratch of calls that have returned
	// (under spareMu), every one made is in made, for free.
	spareMu     sync.Mutex
	spare, made []*sampleScratch
}

// sampleScratch is one SampleBlocks call's host memory, taken from its
// sampleGraph's spares and given back at the call's end, so that calls on
// several goroutines download and build their blocks at once.
type sampleScratch struct {
	// pinned is page-locked host memory (pinnedBytes long) that the
	// blocks come back through, grown to the largest batch yet.
	pinned      unsafe.Pointer
	pinnedBytes int64
	// seedsUp is the page-locked host memory that the seeds go up
	// through without a wait (before the call's download), heavyUp the
	// blocks' heavy-row lists (after it).
	seedsUp, heavyUp stage
	// preps is prepBlockInto's scratch, one a hop (tune.SampleReuse).
	preps []prepScratch
}

// takeScratch returns a spare scratch of s, or a new one.
func (s *sampleGraph) takeScratch() *sampleScratch {
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	if n := len(s.spare); n > 0 {
		sc := s.spare[n-1]
		s.spare = s.spare[:n-1]
		return sc
	}
	sc := &sampleScratch{}
	s.made = append(s.made, sc)
	return sc
}

func (s *sampleGraph) putScratch(sc *sampleScratch) {
	s.spareMu.Lock()
	s.spare = append(s.spare, sc)
	s.spareMu.Unlock()
}

func (s *sampleGraph) free() {
	for _, b := range []*buffer{s.indptr, s.idx, s.flag, s.loc} {
		if b != nil {
			b.release()
		}
	}
	s.spareMu.Lock()
	made := s.made
	s.made, s.spare = nil, nil
	s.spareMu.Unlock()
	for _, sc := range made {
		for _, p := range []*unsafe.Pointer{&sc.pinned, &sc.seedsUp.p, &sc.heavyUp.p} {
			if q := *p; q != nil {
				*p = nil
				// A closed device has freed it with its context.
				_ = s.dev.do(func(drv driver) error { return drv.freeHost(q) })
			}
		}
	}
}

// samplePinned makes SampleBlocks copy the blocks back through pinned
// memory (the tests compare both ways).
var samplePinned = true

// sampleGraphs keeps each device's copy of the graphs it samples from,
// released with the host graph.
var sampleGraphs = tbackend.GraphCache[*Device, *sampleGraph]{Release: (*sampleGraph).free}

func (d *Device) sampleGraph(g *graph.Graph) (*sampleGraph, error) {
	return sampleGraphs.Get(g, d, func() (*sampleGraph, error) {
		if !g.IsSquare() {
			return nil, fmt.Errorf("%w: SampleBlocks: rectangular graph %v", ErrShape, g)
		}
		if int64(g.NumEdges()) >= math.MaxInt32 || g.NumNodes() >= math.MaxInt32 {
			return nil, fmt.Errorf("%w: SampleBlocks: %v is too large for int32 indices", ErrShape, g)
		}
		s := &sampleGraph{dev: d, n: g.NumNodes(), ne: g.NumEdges()}
		for v := 0; v < s.n; v++ {
			s.maxDeg = max(s.maxDeg, g.Indptr[v+1]-g.Indptr[v])
		}
		var err error
		if s.indptr, err = d.uploadInts(toInt32(g.Indptr)); err == nil {
			if s.idx, err = d.uploadInts(toInt32(g.Indices)); err == nil {
				if s.flag, err = d.zeroInts(s.n); err == nil {
					s.loc, err = d.newBuffer(int64(s.n)*4 + 4)
				}
			}
		}
		if err != nil {
			s.free()
			return nil, err
		}
		return s, nil
	})
}

// zeroInts returns n int32 zeros on the device (one more slot, never
// read, so that n may be 0).
func (d *Device) zeroInts(n int) (*buffer, error) {
	b, err := d.newBuffer(int64(n)*4 + 4)
	if err != nil {
		return nil, err
	}
	if err := d.fillInts(b, 0, n+1); err != nil {
		b.release()
		return nil, err
	}
	return b, nil
}

// fillInts sets n int32 slots of b to v: posted to the device goroutine
// with tune.SamplePostLaunch (its error then comes back from the next
// call that waits), as the sampler's launches are.
func (d *Device) fillInts(b *buffer, v uint32, n int) error {
	if d.record(graphNode{dst: b.ptr, v: v, n: int64(n)}) {
		return nil
	}
	p := b.ptr
	fill := func(drv driver) error { return drv.memsetD32(p, v, int64(n)) }
	if tune.SamplePostLaunch {
		return d.post(fill)
	}
	return d.do(fill)
}

// scanInts returns the exclusive prefix sums of the n int32 values of in,
// with their total in entry n (n+1 values).
func (d *Device) scanInts(in *buffer, n int) (*buffer, error) {
	out, err := d.newBuffer(int64(n)*4 + 4)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return out, d.fillInts(out, 0, 1)
	}
	nb := (n + 1023) / 1024
	sums, err := d.newBuffer(int64(nb)*4 + 4)
	if err != nil {
		out.release()
		return nil, err
	}
	defer sums.release()
	if err := d.sampleLaunch("scan_block", nb, 1024, in, out, sums, n); err != nil {
		out.release()
		return nil, err
	}
	total := sums.ptr // one block: its sum is the total
	if nb > 1 {
		ss, err := d.scanInts(sums, nb)
		if err != nil {
			out.release()
			return nil, err
		}
		defer ss.release()
		if err := d.sampleLaunch("scan_add", nb, 1024, out, ss, n); err != nil {
			out.release()
			return nil, err
		}
		total = ss.ptr + uintptr(nb)*4
	}
	if err := d.sampleLaunch("scan_total", 1, 1, out, total, n); err != nil {
		out.release()
		return nil, err
	}
	return out, nil
}

// sampleLaunch is d.launch for the sampler's kernels (sampleHops,
// scanInts, registerBlock): with tune.SamplePostLaunch each is queued for
// the device goroutine without waiting for the driver call (post) even
// where other launches wait (tune.AsyncLaunch off, CUDA_LAUNCH_BLOCKING=1),
// so a batch's ~50 launches, queued under the sampler's lock, hold it for
// less. A launch's error comes back from the call's download, which
// waits.
func (d *Device) sampleLaunch(kernel string, grid, block int, args ...any) error {
	return d.launchSlots(kernel, [3]int{grid, 1, 1}, [3]int{block, 1, 1}, 0, argSlots(kernel, args), tune.SamplePostLaunch || tune.AsyncLaunch)
}

// readInts copies int32 slots of device buffers to the host in one round
// trip: dst[i] gets len(dst[i]) values from src[i].
func (d *Device) readInts(src []uintptr, dst [][]int32) error {
	err := d.do(func(drv driver) error {
		for i, p := range src {
			if len(dst[i]) == 0 {
				continue
			}
			if err := drv.dtoh(unsafe.Pointer(unsafe.SliceData(dst[i])), p, int64(len(dst[i]))*4); err != nil {
				return err
			}
		}
		return nil
	})
	d.waited()
	return err
}

// hop is one block built on the device: CSR by destination (rows sorted
// by source) and the hop's source nodes (global ids, destinations first).
type hop struct {
	ndst, nsrc, ne     int
	bdst, bne, bsrc    int // their bounds (sampleBounds), the buffers' sizes
	rowptr, idx, nodes *buffer
}

func (h *hop) free() {
	for _, b := range []*buffer{h.rowptr, h.idx, h.nodes} {
		if b != nil {
			b.release()
		}
	}
}

// SampleBlocks samples the blocks of data.SampleBlocks (uniform with
// replacement; the same blocks for the same seed) on the device from a
// copy of g kept there (uploaded at the first call, released with g): per
// hop, one thread per destination draws its edges from a counter-based
// hash; the sources new to the hop are flagged in a node-sized array,
// numbered by an exclusive scan of it and compacted (no sort), and the
// edges relabelled to them. Each block's device graph (the CSR, its
// transpose by a counting sort and GraphSAGE's mean weights) is cached
// for the returned host graph, which ops on device tensors then use
// without an upload; the host graphs are copies of the device ones, for
// the layers that read them (GCN's normalisation, GAT's self-loops). The
// hops' buffers are sized from bounds known on the host (frontier times
// fan-out), their counts stay on the device, and the seeds go up through
// pinned memory without a wait, so the whole batch is queued at once and
// waits for the device once: the counts and then the blocks come back in
// one turn of the device goroutine, through pinned memory. When x (a
// tensor on d) is not nil, the rows of blocks[0].SrcNodes are gathered
// from it on the device into the returned tensor. With AutoReplay, d then
// launches one by one for a while (a sampled loop's shapes never repeat).
func (d *Device) SampleBlocks(g *graph.Graph, x *tensor.Tensor, seeds, fanouts []int, seed uint64) ([]graph.Block, *Tensor, error) {
	blocks, out, _, err := d.sampleBlocks(g, x, seeds, fanouts, seed, false)
	return blocks, out, err
}

// sampleBlocks is SampleBlocks. With reuse (and tune.SampleReuse), the
// blocks' host arrays are slices of one arena taken from blockArenas,
// which it returns too, for the caller to give back (putArena) once the
// blocks are no longer read.
func (d *Device) sampleBlocks(g *graph.Graph, x *tensor.Tensor, seeds, fanouts []int, seed uint64, reuse bool) (blocks []graph.Block, out *Tensor, _ []int, err error) {
	s, err := d.sampleGraph(g)
	if err != nil {
		return nil, nil, nil, err
	}
	d.blocksSeen() // launch one by one: no batch repeats another's shapes
	seen := make(map[int]bool, len(seeds))
	for i, v := range seeds {
		if v < 0 || v >= s.n || seen[v] {
			return nil, nil, nil, fmt.Errorf("%w: SampleBlocks: seed %d is node %d of %d (out of range or repeated)", ErrShape, i, v, s.n)
		}
		seen[v] = true
	}
	unlocked, keep := tune.SampleUnlocked, tune.SampleReuse
	reuse = reuse && keep
	// The scratch goes back at the end, after the heavy rows' upload
	// from it was queued (the next call's download waits for that copy).
	sc := s.takeScratch()
	defer s.putScratch(sc)
	t0 := time.Now()
	s.mu.Lock()
	t1 := time.Now()
	hops, cnt, err := d.sampleHops(s, sc, seeds, fanouts, seed)
	t2 := time.Now()
	if unlocked {
		// The next call's kernels queue behind these on the stream.
		s.mu.Unlock()
	}
	var down [][]int32
	if err == nil {
		down, err = d.downloadHops(sc, hops, cnt.ptr)
		if err == nil {
			// The download waited for every copy queued before it.
			sc.seedsUp.pending, sc.heavyUp.pending = false, false
		} else {
			// A posted launch may have failed mid-hop: leave flag all
			// zero for the next call, as sampleHops' own errors do.
			if unlocked {
				s.mu.Lock()
			}
			_ = d.fillInts(s.flag, 0, s.n)
			if unlocked {
				s.mu.Unlock()
			}
		}
	}
	t3 := time.Now()
	if h := sampleHostHook; h != nil && err == nil {
		h(s)
	}
	var host [][3][]int
	var arena []int
	if err == nil {
		if reuse {
			arena = takeArena(listsLen(down))
		}
		host = widenHops(down, arena)
	}
	if !unlocked {
		s.mu.Unlock()
	}
	defer func() {
		for i := range hops {
			hops[i].free()
		}
		if cnt != nil {
			cnt.release()
		}
		if err != nil && arena != nil {
			putArena(arena)
		}
	}()
	if err != nil {
		return nil, nil, nil, err
	}
	t4 := time.Now()
	var scratch *[]prepScratch
	if keep {
		scratch = &sc.preps
	}
	blocks, preps, lists, err := hostBlocks(hops, host, seeds, scratch)
	if err != nil {
		return nil, nil, nil, err
	}
	t5 := time.Now()
	if sp := tune.SampleTiming; sp != nil {
		defer func() {
			t6 := time.Now()
			sp.Mu.Lock()
			defer sp.Mu.Unlock()
			sp.Calls++
			sp.Lock += t1.Sub(t0)
			sp.Queue += t2.Sub(t1)
			sp.Download += t3.Sub(t2)
			sp.Widen += t4.Sub(t3)
			sp.Host += t5.Sub(t4)
			sp.Register += t6.Sub(t5)
		}()
	}
	// The heavy rows of all hops go up in one copy without a wait.
	var listBuf *buffer
	if len(lists) > 0 {
		if listBuf, err = d.newBuffer(int64(len(lists))*4 + 4); err != nil {
			return nil, nil, nil, err
		}
		defer listBuf.release()
		if err = d.stageUp(&sc.heavyUp, listBuf.ptr, lists); err != nil {
			return nil, nil, nil, err
		}
	}
	off := 0
	for i, h := range hops {
		var at uintptr
		if listBuf != nil {
			at = listBuf.ptr + uintptr(off)*4
		}
		off += len(preps[i].heavy) + len(preps[i].tiles) + len(preps[i].theavy) + len(preps[i].ttiles)
		// The device graph takes the CSR buffers over.
		err = d.registerBlock(blocks[len(hops)-1-i].Graph, h.ndst, h.nsrc, h.ne, h.rowptr, h.idx, preps[i], at)
		hops[i].rowptr, hops[i].idx = nil, nil
		if err != nil {
			return nil, nil, nil, err
		}
	}
	if x == nil || len(hops) == 0 {
		return blocks, nil, arena, nil
	}
	last := hops[len(hops)-1]
	out, err = d.gatherBy(x, last.nodes.ptr, last.nsrc, s.n)
	if err != nil {
		return nil, nil, nil, err
	}
	return blocks, out, arena, nil
}

// sampleHostHook, when not nil, is called by SampleBlocks after the
// download, before the host work (tests only: TestSampleHostUnlocked).
var sampleHostHook func(s *sampleGraph)

// sampleSplit is tune.SampleSplit, for the tests that split
// SampleBlocks' time (tune.SampleTiming).
type sampleSplit = tune.SampleSplit

// blockArenas holds the host memory of blocks given back by their user
// (data.NeighborLoader's ReuseBlocks), for the next batches' blocks:
// memory used before costs no page faults, where a fresh allocation on a
// large heap does (tune.SampleReuse).
var blockArenas struct {
	mu   sync.Mutex
	free [][]int
}

// maxArenas bounds the arenas kept: the loader's batches in flight.
const maxArenas = 16

// takeArena returns an arena of at least n ints: a kept one if one is
// large enough (the largest is tried), else a new one with room to grow.
func takeArena(n int) []int {
	blockArenas.mu.Lock()
	k := len(blockArenas.free)
	var a []int
	if k > 0 {
		a = blockArenas.free[k-1]
		blockArenas.free[k-1] = nil
		blockArenas.free = blockArenas.free[:k-1]
	}
	blockArenas.mu.Unlock()
	if cap(a) >= n {
		return a[:cap(a)]
	}
	return make([]int, n+n/8)
}

// putArena keeps a for takeArena (the largest first in line).
func putArena(a []int) {
	blockArenas.mu.Lock()
	defer blockArenas.mu.Unlock()
	f := blockArenas.free
	if len(f) >= maxArenas {
		return
	}
	f = append(f, a)
	// The largest last, where takeArena looks.
	for i := len(f) - 1; i > 0 && cap(f[i]) < cap(f[i-1]); i-- {
		f[i], f[i-1] = f[i-1], f[i]
	}
	blockArenas.free = f
}

// listsLen is the values in lists.
func listsLen(lists [][]int32) int {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	return n
}

// splitLists cuts flat into lists of lens values each.
func splitLists(flat []int32, lens []int) [][]int32 {
	out := make([][]int32, len(lens))
	off := 0
	for i, n := range lens {
		out[i] = flat[off : off+n : off+n]
		off += n
	}
	return out
}

// hostBlocks is SampleBlocks' host work after the download: the
// blocks' host graphs (last hop first), their blockPreps (hop order) and
// the heavy-row lists of all hops in registerBlock's order. scratch,
// when not nil, holds prepBlock's scratch, one a hop. With
// tune.SampleParallelHost the hops are built on goroutines of their own
// (the last, the largest, on this one).
func hostBlocks(hops []hop, host [][3][]int, seeds []int, scratch *[]prepScratch) ([]graph.Block, []*blockPrep, []int32, error) {
	n := len(hops)
	if scratch != nil && len(*scratch) < n {
		*scratch = append(*scratch, make([]prepScratch, n-len(*scratch))...)
	}
	bgs := make([]*graph.Graph, n)
	preps := make([]*blockPrep, n)
	errs := make([]error, n)
	build := func(i int) {
		h := hops[i]
		bg, err := hostBlock(h.nsrc, h.ndst, host[i][0], host[i][1])
		if err != nil {
			errs[i] = err
			return
		}
		var ps *prepScratch
		if scratch != nil {
			ps = &(*scratch)[i]
		}
		bgs[i], preps[i] = bg, prepBlockInto(bg, ps)
	}
	if tune.SampleParallelHost && n > 1 {
		var wg sync.WaitGroup
		for i := range n - 1 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				build(i)
			}()
		}
		build(n - 1)
		wg.Wait()
	} else {
		for i := range n {
			build(i)
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, nil, nil, err
		}
	}
	blocks := make([]graph.Block, n)
	var lists []int32
	dstNodes := append([]int(nil), seeds...)
	for i := range hops {
		lists = append(lists, preps[i].lists()...)
		srcNodes := host[i][2]
		blocks[n-1-i] = graph.Block{Graph: bgs[i], SrcNodes: srcNodes, DstNodes: dstNodes}
		dstNodes = srcNodes
	}
	return blocks, preps, lists, nil
}

// hostBlock returns the host graph of a block whose CSR came back from
// the device: nsrc sources, ndst destinations, ptr and src in
// graph.Graph's layout already (rows by destination, each sorted by
// source: sort_rows), which the graph takes as they are. NewBipartite
// over the edge list sorted them again, most of the host's time a batch
// (BenchmarkSampleBlocksHost).
func hostBlock(nsrc, ndst int, ptr, src []int) (*graph.Graph, error) {
	if len(ptr) != ndst+1 || ptr[ndst] != len(src) {
		return nil, fmt.Errorf("%w: SampleBlocks: a block's row pointer of %d for %d rows and %d edges", ErrShape, len(ptr), ndst, len(src))
	}
	if !hostBlockDirect {
		rows := make([]int, len(src))
		for v := 0; v < ndst; v++ {
			for e := ptr[v]; e < ptr[v+1]; e++ {
				rows[e] = v
			}
		}
		return graph.NewBipartite(nsrc, ndst, src, rows, nil)
	}
	return graph.BipartiteFromCSR(nsrc, ptr, src, nil)
}

// hostBlockDirect makes hostBlock take the downloaded CSR as it is
// (graph.BipartiteFromCSR, which checks it in one pass and allocates
// nothing node-sized; the empty graph.NewBipartite that the CSR was put
// into before allocated and scanned arrays of the block's sources and
// destinations: a products-sized batch's hostBlocks took 3.8-4.0 ms, now
// 2.5 ms, BenchmarkSampleBlocksHostProducts on the 2-core dev machine);
// off, it builds the graph through graph.NewBipartite's sort. On since
// 2026-12-06: TestHostBlock, which checks both give the same graph, passed
// on an H100 in the sixth session's final run, before BipartiteFromCSR
// replaced the empty NewBipartite (TestHostBlockAllocates checks that on
// the CPU; the whole cuda suite passed with it on an H100 at 17:18).
var hostBlockDirect = true

// downloadHops reads the hops' counts back and then copies each hop's
// rowptr, sources and node list to the host: with samplePinned, both in
// one turn of the device goroutine through sc's pinned buffer (grown to
// the largest batch yet), so the batch waits for the device once; else
// (or when no pinned memory can be had) into Go memory, one wait for the
// counts and one for the blocks. It sets each hop's ndst, nsrc and ne
// from the counts, and returns the lists (rowptr, sources and nodes a
// hop; in sc's pinned memory, read until sc goes back).
func (d *Device) downloadHops(sc *sampleScratch, hops []hop, cnt uintptr) ([][]int32, error) {
	nh := len(hops)
	ncnt := 2*nh + 1
	var total int
	var srcs []uintptr
	var lens []int
	// layout fills the hops' sizes from the counts and lists the copies.
	layout := func(c []int32) {
		srcs, lens, total = srcs[:0], lens[:0], 0
		for k := range hops {
			h := &hops[k]
			h.ndst, h.nsrc, h.ne = int(c[k]), int(c[k+1]), int(c[nh+1+k])
			srcs = append(srcs, h.rowptr.ptr, h.idx.ptr, h.nodes.ptr)
			lens = append(lens, h.ndst+1, h.ne, h.nsrc)
			total += h.ndst + 1 + h.ne + h.nsrc
		}
	}
	// The bounds give the size the blocks may reach.
	need := int64(ncnt)*4 + 4
	for _, h := range hops {
		need += int64(h.bdst+1+h.bne+h.bsrc) * 4
	}
	var flat []int32
	if ad, ok := d.drv.(asyncDownloader); ok && samplePinned && tune.SampleAsyncDownload {
		lists, err := d.downloadAsync(ad, sc, hops, need, cnt, ncnt, layout, func() ([]uintptr, []int, int) { return srcs, lens, total })
		switch {
		case err == nil:
			return lists, nil
		case err != errNoPinned:
			return nil, err
		}
	} else if samplePinned {
		err := d.do(func(drv driver) error {
			if err := sc.growPinned(drv, need); err != nil {
				return err // errNoPinned: the plain copies below still work
			}
			if err := drv.dtoh(sc.pinned, cnt, int64(ncnt)*4); err != nil {
				return err
			}
			layout(unsafe.Slice((*int32)(sc.pinned), ncnt))
			off := ncnt
			for i, p := range srcs {
				if lens[i] > 0 {
					if err := drv.dtoh(unsafe.Add(sc.pinned, off*4), p, int64(lens[i])*4); err != nil {
						return err
					}
				}
				off += lens[i]
			}
			return nil
		})
		d.waited()
		switch {
		case err == nil:
			flat = unsafe.Slice((*int32)(sc.pinned), ncnt+total)[ncnt:]
		case err != errNoPinned:
			return nil, err
		}
	}
	if flat == nil {
		c := make([]int32, ncnt)
		if err := d.readInts([]uintptr{cnt}, [][]int32{c}); err != nil {
			return nil, err
		}
		layout(c)
		flat = make([]int32, total)
		dsts := make([][]int32, len(lens))
		off := 0
		for i, n := range lens {
			dsts[i] = flat[off : off+n]
			off += n
		}
		if err := d.readInts(srcs, dsts); err != nil {
			return nil, err
		}
	}
	return splitLists(flat, lens), nil
}

// asyncDownloader is the optional capability of a driver (the CUDA one)
// to copy to the host without waiting (into page-locked memory) and to
// mark a point of its stream (an event), polled by marked until the work
// queued before it is done; unmark frees the mark. All run on the device
// goroutine.
type asyncDownloader interface {
	dtohAsync(dst unsafe.Pointer, src uintptr, n int64) error
	mark() (uintptr, error)
	marked(h uintptr) (bool, error)
	unmark(h uintptr)
}

// growPinned makes sc's pinned buffer at least need bytes (device
// goroutine); errNoPinned if none can be had.
func (sc *sampleScratch) growPinned(drv driver, need int64) error {
	if sc.pinnedBytes >= need {
		return nil
	}
	size := max(need, sc.pinnedBytes*5/4)
	if sc.pinned != nil {
		if err := drv.freeHost(sc.pinned); err != nil {
			return err
		}
		sc.pinned, sc.pinnedBytes = nil, 0
	}
	p, err := drv.allocHost(size)
	if err != nil {
		return errNoPinned
	}
	sc.pinned, sc.pinnedBytes = p, size
	return nil
}

// downloadAsync is downloadHops' copy with tune.SampleAsyncDownload:
// copies that do not wait bring the batch back into sc's pinned buffer,
// and a mark after them is polled (awaitMark) from this goroutine, so the
// device goroutine queues the other goroutines' work (the training
// step's) meanwhile, where a waiting copy held it until the stream
// drained. When the hops' bounds (sizes the buffers hold) come to at most
// asyncBoundBytes, the counts and every list at its bound go back in one
// turn and one wait; else the counts first and then the lists, sized by
// the counts (layout, after which lists gives the copies), each with its
// own wait.
func (d *Device) downloadAsync(ad asyncDownloader, sc *sampleScratch, hops []hop, need int64, cnt uintptr, ncnt int, layout func([]int32), lists func() ([]uintptr, []int, int)) ([][]int32, error) {
	var h uintptr
	one := need <= asyncBoundBytes
	err := d.do(func(drv driver) error {
		if err := sc.growPinned(drv, need); err != nil {
			return err
		}
		if err := ad.dtohAsync(sc.pinned, cnt, int64(ncnt)*4); err != nil {
			return err
		}
		if one {
			off := ncnt
			for _, hp := range hops {
				for _, c := range []struct {
					p uintptr
					n int
				}{{hp.rowptr.ptr, hp.bdst + 1}, {hp.idx.ptr, hp.bne}, {hp.nodes.ptr, hp.bsrc}} {
					if c.n > 0 {
						if err := ad.dtohAsync(unsafe.Add(sc.pinned, off*4), c.p, int64(c.n)*4); err != nil {
							return err
						}
					}
					off += c.n
				}
			}
		}
		var err error
		h, err = ad.mark()
		return err
	})
	if err == nil {
		err = d.awaitMark(ad, h)
	}
	if err != nil {
		d.waited()
		return nil, err
	}
	layout(unsafe.Slice((*int32)(sc.pinned), ncnt))
	srcs, lens, total := lists()
	if one {
		d.waited()
		return boundLists(unsafe.Slice((*int32)(sc.pinned), int(need/4)), hops, lens, ncnt), nil
	}
	err = d.do(func(drv driver) error {
		off := ncnt
		for i, p := range srcs {
			if lens[i] > 0 {
				if err := ad.dtohAsync(unsafe.Add(sc.pinned, off*4), p, int64(lens[i])*4); err != nil {
					return err
				}
			}
			off += lens[i]
		}
		var err error
		h, err = ad.mark()
		return err
	})
	if err == nil {
		err = d.awaitMark(ad, h)
	}
	d.waited()
	if err != nil {
		return nil, err
	}
	return splitLists(unsafe.Slice((*int32)(sc.pinned), ncnt+total)[ncnt:], lens), nil
}

// boundLists cuts the lists out of a download laid out at the hops'
// bounds (the ncnt counts, then each hop's rowptr, sources and nodes at
// bdst+1, bne and bsrc values each): lens values each.
func boundLists(all []int32, hops []hop, lens []int, ncnt int) [][]int32 {
	out := make([][]int32, 0, len(lens))
	off := ncnt
	for k, hp := range hops {
		for j, bound := range []int{hp.bdst + 1, hp.bne, hp.bsrc} {
			n := lens[3*k+j]
			out = append(out, all[off:off+n:off+n])
			off += bound
		}
	}
	return out
}

// asyncBoundBytes is the largest download, at the hops' bounds, that
// downloadAsync brings back in one turn (fan-outs of -1 can make the
// bounds far larger than the blocks; a products-sized batch's are 9.4 MB
// for 7.4 MB of blocks).
var asyncBoundBytes int64 = 64 << 20

// awaitMark polls mark h through the device goroutine until the stream
// has passed it, sleeping between polls (20 µs, doubling to 320 µs), and
// frees it.
func (d *Device) awaitMark(ad asyncDownloader, h uintptr) error {
	for pause := 20 * time.Microsecond; ; pause = min(2*pause, 320*time.Microsecond) {
		var done bool
		err := d.do(func(driver) error {
			var err error
			done, err = ad.marked(h)
			if done || err != nil {
				ad.unmark(h)
			}
			return err
		})
		if err != nil || done {
			return err
		}
		time.Sleep(pause)
	}
}

// widenHops converts the downloaded int32 lists (the hops' rowptr,
// sources and node lists, in that order) to the host graphs' ints: into
// slices of arena (capped, so that an append to one does not write the
// next) when it is not nil (takeArena(listsLen(lists))), else one
// allocation a list. (One allocation for the whole batch, sliced, was
// no faster than one a list: BenchmarkSampleBlocksHostProducts, 2.2 and
// 2.8 ms a products-sized batch against 2.8 and 3.0 ms, the time being
// the fresh pages' first touch, which an arena used before does not
// pay.)
func widenHops(lists [][]int32, arena []int) [][3][]int {
	out := make([][3][]int, len(lists)/3)
	off := 0
	for i, l := range lists {
		var a []int
		if arena != nil {
			a = arena[off : off+len(l) : off+len(l)]
			off += len(l)
		} else {
			a = make([]int, len(l))
		}
		widen(a, l)
		out[i/3][i%3] = a
	}
	return out
}

// widen sets dst[i] = src[i]: with tune.SampleParallelHost, in chunks of
// at least 256k values on up to four goroutines.
func widen(dst []int, src []int32) {
	const chunk = 1 << 18
	parts := 1
	if tune.SampleParallelHost {
		parts = min(4, max(1, len(src)/chunk))
	}
	var wg sync.WaitGroup
	per := (len(src) + parts - 1) / max(parts, 1)
	for p := range parts {
		lo, hi := p*per, min((p+1)*per, len(src))
		part := func() {
			d := dst[lo:hi]
			for j, v := range src[lo:hi] {
				d[j] = int(v)
			}
		}
		if p == parts-1 {
			part()
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			part()
		}()
	}
	wg.Wait()
}

// errNoPinned says that downloadHops could not allocate pinned memory.
var errNoPinned = fmt.Errorf("no pinned memory")

// sampleBounds returns, hop by hop, bounds of the destinations, edges and
// sources that sampleHops may draw from nseeds seeds of a graph of n
// nodes, ne edges and largest in-degree maxDeg: a hop's destinations are
// distinct, so it draws at most fan of them each (their degrees, at most
// ne in all, when fan is negative), and its sources are distinct nodes,
// at most its destinations plus its edges.
func sampleBounds(nseeds, n, ne, maxDeg int, fanouts []int) (bdst, bne, bsrc []int64) {
	d := int64(nseeds)
	for _, fan := range fanouts {
		e := d * int64(max(fan, 0))
		if fan < 0 {
			e = min(d*int64(maxDeg), int64(ne))
		}
		src := min(d+e, int64(max(n, nseeds)))
		bdst, bne, bsrc = append(bdst, d), append(bne, e), append(bsrc, src)
		d = src
	}
	return
}

// sampleHops queues the sampler's kernels, hop by hop (s.mu held), with
// no wait: each hop's buffers are sized from sampleBounds, its counts stay
// on the device in cnt (2·hops+1 int32: the destinations of hop k at k,
// the last hop's sources at hops, the edges of hop k at hops+1+k), and
// the kernels read them there. The seeds go up through sc's pinned upload
// buffer without a wait (the copy of the call that used sc before is
// done: every call waits in downloadHops before its sc goes back). The
// caller frees the hops and cnt.
func (d *Device) sampleHops(s *sampleGraph, sc *sampleScratch, seeds, fanouts []int, seed uint64) (hops []hop, cnt *buffer, err error) {
	nh := len(fanouts)
	ncnt := 2*nh + 1
	bdst, bne, bsrc := sampleBounds(len(seeds), s.n, s.ne, s.maxDeg, fanouts)
	for k := range fanouts {
		if bne[k] >= math.MaxInt32 || bdst[k] >= math.MaxInt32 {
			return nil, nil, fmt.Errorf("%w: SampleBlocks: hop %d may draw %d edges, at most 2^31-1 supported", ErrShape, k, bne[k])
		}
	}
	// One buffer holds cnt and then the seeds.
	up := make([]int32, ncnt+len(seeds))
	up[0] = int32(len(seeds))
	for i, v := range seeds {
		up[ncnt+i] = int32(v)
	}
	upBuf, err := d.newBuffer(int64(len(up))*4 + 4)
	if err != nil {
		return nil, nil, err
	}
	if err := d.stageUp(&sc.seedsUp, upBuf.ptr, up); err != nil {
		upBuf.release()
		return nil, nil, err
	}
	cnt = upBuf
	fail := func(err error) ([]hop, *buffer, error) {
		// Leave flag all zero for the next call, whatever the hop reached.
		if e := d.fillInts(s.flag, 0, s.n); e != nil && err == nil {
			err = e
		}
		return hops, cnt, err
	}
	// dst holds the hop's destinations: the seeds, then the last hop's
	// sources (owned by hops); cnt+4k their number.
	dst := upBuf.ptr + uintptr(ncnt)*4
	for k, fan := range fanouts {
		ndstp := cnt.ptr + uintptr(k)*4
		bd, be, bs := int(bdst[k]), int(bne[k]), int(bsrc[k])
		hops = append(hops, hop{bdst: bd, bne: be, bsrc: bs})
		h := &hops[k]
		counts, err := d.newBuffer(int64(bd)*4 + 4)
		if err != nil {
			return fail(err)
		}
		err = d.sampleLaunch("sample_counts", d.gridFor(int64(bd), 256), 256, s.indptr, dst, counts, ndstp, bd, fan)
		if err == nil {
			h.rowptr, err = d.scanInts(counts, bd)
		}
		counts.release()
		if err != nil {
			return fail(err)
		}
		// The hop's edge count is the scan's total.
		nep := h.rowptr.ptr + uintptr(bd)*4
		if h.idx, err = d.newBuffer(int64(be)*4 + 4); err != nil {
			return fail(err)
		}
		if err := d.sampleLaunch("sample_edges", d.gridFor(int64(bd), 128), 128, s.indptr, s.idx, dst, h.rowptr, h.idx, s.flag, ndstp, bd, fan, data.HopSeed(seed, k)); err != nil {
			return fail(err)
		}
		if err := d.sampleLaunch("sample_mark_dst", d.gridFor(int64(bd), 256), 256, dst, s.flag, s.loc, ndstp, bd); err != nil {
			return fail(err)
		}
		pos, err := d.scanInts(s.flag, s.n)
		if err != nil {
			return fail(err)
		}
		err = d.sampleLaunch("sample_sizes", 1, 1, nep, pos.ptr+uintptr(s.n)*4, cnt, k, nh)
		if err == nil {
			h.nodes, err = d.newBuffer(int64(bs)*4 + 4)
		}
		if err == nil && bd > 0 {
			// The bound's slots past the destinations are overwritten by
			// sample_compact or never read.
			to, from := h.nodes.ptr, dst // posted: copy the values now
			err = d.post(func(drv driver) error { return drv.dtod(to, from, int64(bd)*4) })
		}
		if err == nil {
			err = d.sampleLaunch("sample_compact", d.gridFor(int64(s.n), 256), 256, s.flag, pos, s.loc, h.nodes, s.n, ndstp)
		}
		pos.release()
		if err == nil {
			err = d.sampleLaunch("sample_relabel", d.gridFor(int64(be), 256), 256, h.idx, s.loc, nep, be)
		}
		if err == nil {
			err = d.sampleLaunch("sort_rows", d.gridFor(int64(bd), 128), 128, h.rowptr, h.idx, bd)
		}
		if err != nil {
			return fail(err)
		}
		dst = h.nodes.ptr
	}
	return hops, cnt, nil
}

// stage is page-locked host memory that small uploads go through
// without a wait (cuMemcpyHtoDAsync from pageable memory waits for the
// stream): pending says a copy from it may not have run yet, so that its
// next use waits for it first. It belongs to one sampleScratch, used by
// one call at a time.
type stage struct {
	p       unsafe.Pointer
	bytes   int64
	pending bool
}

// stageUp copies vals to the device at dst through st without waiting,
// or with a plain, waiting upload when no pinned memory can be had. The
// caller clears st.pending once a wait on the device goroutine has
// followed (downloadHops').
func (d *Device) stageUp(st *stage, dst uintptr, vals []int32) error {
	n := int64(len(vals)) * 4
	if n == 0 {
		return nil
	}
	d.uploads.Add(1)
	err := d.do(func(drv driver) error {
		if st.pending {
			if err := drv.sync(); err != nil {
				return err
			}
			st.pending = false
		}
		if st.bytes < n {
			size := max(n, st.bytes*5/4, 64<<10)
			if st.p != nil {
				if err := drv.freeHost(st.p); err != nil {
					return err
				}
				st.p, st.bytes = nil, 0
			}
			p, err := drv.allocHost(size)
			if err != nil {
				return errNoPinned
			}
			st.p, st.bytes = p, size
		}
		copy(unsafe.Slice((*int32)(st.p), len(vals)), vals)
		st.pending = true
		return drv.htod(dst, st.p, n, true)
	})
	if err == errNoPinned {
		return d.do(func(drv driver) error { return drv.htod(dst, unsafe.Pointer(unsafe.SliceData(vals)), n, false) })
	}
	return err
}

// blockPrep is the host's part of registerBlock for one block: the
// transpose's row pointer, counted from the block's sources (a pass over
// the edges on the calling goroutine, a loader's, not a transpose), the
// degree statistics of both directions and their heavy rows (what
// NewGraphCSR lists at upload), whose lists go up with other data in one
// copy (see lists).
type blockPrep struct {
	in, out                      degreeStats
	heavy, tiles, theavy, ttiles []int32
	ntiles, tntiles              int
}

func prepBlock(bg *graph.Graph) *blockPrep { return prepBlockInto(bg, nil) }

// prepScratch is prepBlockInto's memory for one block, kept between
// calls: the sources' out-degrees a byte each (prepFused), or the
// transpose's row pointer (without it).
type prepScratch struct {
	deg8    []uint8
	tindptr []int32
}

// prepBlockInto is prepBlock with its scratch in sc (grown as needed)
// when sc is not nil: it is read only here. With prepFused, each
// direction's degree statistics and heavy rows come from one pass over
// its degrees (rowsOf, outDegrees), and the sources' out-degrees are
// counted a byte each (outDegrees); else as before, degreeStatsOf and
// heavyRowsOf over each row pointer, the transpose's summed from its
// counts.
func prepBlockInto(bg *graph.Graph, sc *prepScratch) *blockPrep {
	nsrc := bg.NumSrc()
	p := &blockPrep{}
	if prepFused {
		var deg8 *[]uint8
		if sc != nil {
			deg8 = &sc.deg8
		}
		p.in, p.heavy, p.tiles, p.ntiles = rowsOf(bg.Indptr, true)
		p.out, p.theavy, p.ttiles, p.tntiles = outDegrees(bg.Indices, nsrc, deg8)
		return p
	}
	var buf *[]int32
	if sc != nil {
		buf = &sc.tindptr
	}
	tindptr := zeroed(buf, nsrc+1)
	for _, u := range bg.Indices {
		tindptr[u+1]++
	}
	for u := 0; u < nsrc; u++ {
		tindptr[u+1] += tindptr[u]
	}
	p.in, p.out = degreeStatsOf(bg.Indptr), degreeStatsOf(tindptr)
	p.heavy, p.tiles, p.ntiles = heavyRowsOf(bg.Indptr)
	p.theavy, p.ttiles, p.tntiles = heavyRowsOf(tindptr)
	return p
}

// zeroed returns n zeros in *buf's memory where it has room, else in new
// memory that *buf keeps for the next call (nil buf: new memory, kept by
// no one).
func zeroed[T any](buf *[]T, n int) []T {
	if buf != nil && cap(*buf) >= n {
		z := (*buf)[:n]
		clear(z)
		return z
	}
	z := make([]T, n)
	if buf != nil {
		*buf = z
	}
	return z
}

// prepFused makes prepBlockInto take each direction's statistics and
// heavy rows in one pass over its degrees (rowsOf, outDegrees), without
// summing the transpose's row pointer: three passes over a block's
// sources fewer than degreeStatsOf and heavyRowsOf over each row
// pointer, which give the same prep (TestPrepFused).
var prepFused = true

// outDegrees is rowsOf over the out-degrees of nsrc sources whose edges
// idx lists (the transpose's degrees), counted a byte a source into
// *deg8 (grown as needed; nil: fresh memory): a sampled block's sources
// have one or two edges each, and a products-sized block's 685k counts
// take 0.7 MB a byte each, which stays in a core's cache better than
// 2.7 MB of int32 (on the 2-core dev machine, BenchmarkOutDegrees: a
// products-sized batch's three blocks 1.40-1.63 ms against 1.72-2.16 as
// int32 counts read by rowsOf; BenchmarkSampleBlocksHostProducts' host
// blocks with reused memory 1.65-1.83 ms against 2.24-2.43 before). A
// count stops at 255; where one reaches it, the sources at 255 are
// counted again exactly, in a map.
func outDegrees(idx []int, nsrc int, deg8 *[]uint8) (s degreeStats, heavy, tiles []int32, ntiles int) {
	cnt := zeroed(deg8, nsrc)
	for _, u := range idx {
		if c := cnt[u]; c < math.MaxUint8 {
			cnt[u] = c + 1
		}
	}
	s = degreeStats{rows: nsrc, edges: len(idx)}
	var most uint8
	nheavy := 0
	for _, c := range cnt {
		most = max(most, c)
		if c > heavyTile {
			nheavy++
		}
	}
	s.max = int(most)
	var exact map[int]int
	if most == math.MaxUint8 {
		exact = make(map[int]int)
		for _, u := range idx {
			if cnt[u] == math.MaxUint8 {
				exact[u]++
			}
		}
		for _, d := range exact {
			s.max = max(s.max, d)
		}
	}
	if nheavy == 0 {
		return s, nil, nil, 0
	}
	heavy, tiles, ntiles = heavyList(nsrc, nheavy, &s, func(v int) int {
		if c := cnt[v]; c < math.MaxUint8 {
			return int(c)
		}
		return exact[v]
	})
	return s, heavy, tiles, ntiles
}

// rowsOf is degreeStatsOf and heavyRowsOf in one pass, over a row
// pointer (ptr) or over the rows' lengths. The loop keeps its sums in
// locals and leaves the rare heavy rows to heavyList.
func rowsOf[I int | int32](a []I, ptr bool) (s degreeStats, heavy, tiles []int32, ntiles int) {
	n := len(a)
	if ptr {
		n--
	}
	var edges, most, nheavy int
	if ptr {
		for v := 0; v < n; v++ {
			d := int(a[v+1] - a[v])
			most = max(most, d)
			if d > heavyTile {
				nheavy++
			}
		}
		if n > 0 {
			edges = int(a[n] - a[0])
		}
	} else {
		for _, x := range a {
			d := int(x)
			edges += d
			most = max(most, d)
			if d > heavyTile {
				nheavy++
			}
		}
	}
	s = degreeStats{rows: n, edges: edges, max: most}
	if nheavy == 0 {
		return s, nil, nil, 0
	}
	heavy, tiles, ntiles = heavyList(n, nheavy, &s, func(v int) int {
		if ptr {
			return int(a[v+1] - a[v])
		}
		return int(a[v])
	})
	return s, heavy, tiles, ntiles
}

// heavyList lists, of n rows whose degrees deg gives, the nheavy of more
// than heavyTile edges, each with the index of its first edge tile, and
// counts them and their edges in s (the second pass of rowsOf and
// outDegrees, which run it only where a row is heavy).
func heavyList(n, nheavy int, s *degreeStats, deg func(v int) int) (heavy, tiles []int32, ntiles int) {
	heavy, tiles = make([]int32, 0, nheavy), make([]int32, 0, nheavy)
	for v := range n {
		if d := deg(v); d > heavyTile {
			s.heavy++
			s.heavyEdges += d
			heavy = append(heavy, int32(v))
			tiles = append(tiles, int32(ntiles))
			ntiles += (d + heavyTile - 1) / heavyTile
		}
	}
	return heavy, tiles, ntiles
}

// lists returns the heavy-row lists in the order registerBlock reads them
// from the device: heavy, tiles, theavy, ttiles.
func (p *blockPrep) lists() []int32 {
	return slices.Concat(p.heavy, p.tiles, p.theavy, p.ttiles)
}

// registerBlock builds on the device the transpose of a block's CSR
// (rowptr over ndst rows, idx the ne sources in [0, nsrc)) by a counting
// sort (block_hist, scanInts, block_transpose) and GraphSAGE's mean
// weights, and caches the result for bg, the host copy, in the unweighted
// and mean-weighted modes, so that the device ops find it without an
// upload. It takes rowptr and idx over (released with the device graph,
// or at once on an error). p is prepBlock(bg); lists is the device
// address of p.lists(), uploaded by the caller (any value when the lists
// are empty), from which the heavy rows are copied on the device: the
// call waits for nothing.
func (d *Device) registerBlock(bg *graph.Graph, ndst, nsrc, ne int, rowptr, idx *buffer, p *blockPrep, lists uintptr) error {
	g := &Graph{dev: d, n: ndst, nsrc: nsrc, edges: ne, indptr: rowptr, idx: idx, maxTile: heavyTile}
	bufs := []*buffer{rowptr, idx}
	fail := func(err error) error {
		for _, b := range bufs {
			if b != nil {
				b.release()
			}
		}
		return err
	}
	cnt, err := d.zeroInts(nsrc)
	if err != nil {
		return fail(err)
	}
	defer cnt.release()
	if err := d.sampleLaunch("block_hist", d.gridFor(int64(ne), 256), 256, idx, cnt, ne); err != nil {
		return fail(err)
	}
	tptr, err := d.scanInts(cnt, nsrc)
	if err != nil {
		return fail(err)
	}
	bufs = append(bufs, tptr)
	if err := d.fillInts(cnt, 0, nsrc); err != nil {
		return fail(err)
	}
	var tidx, w, tw *buffer
	for _, p := range []**buffer{&tidx, &w, &tw} {
		if *p, err = d.newBuffer(int64(ne)*4 + 4); err != nil {
			return fail(err)
		}
		bufs = append(bufs, *p)
	}
	if err := d.sampleLaunch("block_transpose", d.gridFor(int64(ndst), 128), 128, rowptr, idx, tptr, cnt, tidx, w, tw, ndst); err != nil {
		return fail(err)
	}
	g.tptr, g.tidx = tptr, tidx
	g.in, g.out = p.in, p.out
	// The heavy-row lists, copied out of the caller's upload.
	off := lists
	list := func(n int) (*buffer, error) {
		if n == 0 {
			return nil, nil
		}
		b, err := d.newBuffer(int64(n)*4 + 4)
		if err != nil {
			return nil, err
		}
		bufs = append(bufs, b)
		to, from := b.ptr, off
		off += uintptr(n) * 4
		return b, d.post(func(drv driver) error { return drv.dtod(to, from, int64(n)*4) })
	}
	g.hv = heavyRows{n: len(p.heavy), ntiles: p.ntiles}
	g.thv = heavyRows{n: len(p.theavy), ntiles: p.tntiles}
	for _, l := range []struct {
		b **buffer
		n int
	}{{&g.hv.heavy, len(p.heavy)}, {&g.hv.tiles, len(p.tiles)}, {&g.thv.heavy, len(p.theavy)}, {&g.thv.tiles, len(p.ttiles)}} {
		if *l.b, err = list(l.n); err != nil {
			return fail(err)
		}
	}
	g.heavy, g.tiles, g.nheavy, g.ntiles = g.hv.heavy, g.hv.tiles, g.hv.n, g.hv.ntiles
	mean := *g
	mean.w, mean.tw = w, tw
	for _, c := range []struct {
		mode graphMode
		g    *Graph
	}{{unweighted, g}, {meanWeights, &mean}} {
		dg := c.g
		got, err := d.graphs.Get(bg, c.mode, func() (*Graph, error) { return dg, nil })
		if err != nil {
			return fail(err)
		}
		if got != dg {
			return fail(fmt.Errorf("%w: a block graph was on the device already", ErrShape))
		}
		d.graphList.add(dg)
	}
	return nil
}

// gatherBy returns the rows of x (on d, rows rows) listed by the n int32
// indices in idx.
func (d *Device) gatherBy(x *tensor.Tensor, idx uintptr, n, rows int) (*Tensor, error) {
	v, err := backend{Device: d}.view(x)
	if err != nil {
		return nil, err
	}
	xr, w := rowShape(x.Shape())
	if xr != rows {
		return nil, fmt.Errorf("%w: features of %d rows for a graph of %d nodes", ErrShape, xr, rows)
	}
	out, err := d.Empty(n, w)
	if err != nil || out.Len() == 0 {
		return out, err
	}
	return out, d.launch("gather_rows", d.gridFor(int64(n)*int64(w), 256), 256, v, idx, out, int64(n), int64(w))
}

// UploadBlocks puts blocks sampled on the host (graph.SampleNeighbors,
// data.SampleBlocks) onto the device: the CSRs of the blocks not there
// yet go up as int32 (indptr and indices; nothing is built on the host),
// with the row list of the gather below, in one copy, which is the call's
// only wait for the device; their transposes and mean weights are built
// on the device as SampleBlocks builds them, and the result is cached for
// each block's graph. When x (a tensor on d) is not nil, the rows of
// blocks[0].SrcNodes are gathered from it on the device (the features do
// not move). With AutoReplay, d then launches one by one for a while, as
// after SampleBlocks.
func (d *Device) UploadBlocks(blocks []graph.Block, x *tensor.Tensor) (*Tensor, error) {
	d.blocksSeen() // launch one by one: no batch repeats another's shapes
	var todo []*graph.Graph
	var preps []*blockPrep
	total := 0
	for _, b := range blocks {
		g := b.Graph
		if int64(g.NumEdges()) >= math.MaxInt32 {
			return nil, fmt.Errorf("%w: UploadBlocks: %d edges, at most 2^31-1 supported", ErrShape, g.NumEdges())
		}
		if _, err := d.graphs.Get(g, unweighted, func() (*Graph, error) { return nil, errUploaded }); err == nil {
			continue // on the device already
		}
		todo = append(todo, g)
		p := prepBlock(g)
		preps = append(preps, p)
		total += len(g.Indptr) + len(g.Indices) + len(p.heavy) + len(p.tiles) + len(p.theavy) + len(p.ttiles)
	}
	var rows []int
	xr := 0
	if x != nil && len(blocks) > 0 {
		xr, _ = rowShape(x.Shape())
		rows = blocks[0].SrcNodes
		for _, r := range rows {
			if r < 0 || r >= xr {
				return nil, fmt.Errorf("gnnlib/cuda: UploadBlocks: index %d not in [0, %d): %w", r, xr, tensor.ErrIndex)
			}
		}
		total += len(rows)
	}
	if total == 0 {
		if x == nil || len(blocks) == 0 {
			return nil, nil
		}
		return d.gatherBy(x, 0, 0, xr) // no rows
	}
	flat := make([]int32, 0, total)
	for i, g := range todo {
		for _, v := range g.Indptr {
			flat = append(flat, int32(v))
		}
		for _, v := range g.Indices {
			flat = append(flat, int32(v))
		}
		flat = append(flat, preps[i].lists()...)
	}
	for _, r := range rows {
		flat = append(flat, int32(r))
	}
	up, err := d.uploadInts(flat)
	if err != nil {
		return nil, err
	}
	defer up.release()
	// Each block's CSR is copied out of the upload on the device (the
	// device graph owns its buffers).
	part := func(off, n int) (*buffer, error) {
		b, err := d.newBuffer(int64(n)*4 + 4)
		if err != nil || n == 0 {
			return b, err
		}
		to, from := b.ptr, up.ptr+uintptr(off)*4
		if err := d.post(func(drv driver) error { return drv.dtod(to, from, int64(n)*4) }); err != nil {
			b.release()
			return nil, err
		}
		return b, nil
	}
	off := 0
	for i, g := range todo {
		rowptr, err := part(off, len(g.Indptr))
		if err != nil {
			return nil, err
		}
		off += len(g.Indptr)
		idx, err := part(off, len(g.Indices))
		if err != nil {
			rowptr.release()
			return nil, err
		}
		off += len(g.Indices)
		p := preps[i]
		if err := d.registerBlock(g, g.NumNodes(), g.NumSrc(), g.NumEdges(), rowptr, idx, p, up.ptr+uintptr(off)*4); err != nil {
			return nil, err
		}
		off += len(p.heavy) + len(p.tiles) + len(p.theavy) + len(p.ttiles)
	}
	if rows == nil {
		return nil, nil
	}
	return d.gatherBy(x, up.ptr+uintptr(off)*4, len(rows), xr)
}

// errUploaded is the lookup-only make of UploadBlocks' cache check.
var errUploaded = fmt.Errorf("not on the device")

// SampleBlocks is Device.SampleBlocks as data.BlockSampler, the capability
// through which data.NeighborLoader samples on the device.
func (d *backend) SampleBlocks(g *graph.Graph, x *tensor.Tensor, seeds, fanouts []int, seed uint64) ([]graph.Block, tensor.Storage, error) {
	blocks, t, err := d.Device.SampleBlocks(g, x, seeds, fanouts, seed)
	if t == nil {
		return blocks, nil, err
	}
	return blocks, t, err
}

// PreloadLabels puts labels on the device in the label cache through
// which CrossEntropy finds them when given the same slice (labelcache.go),
// so that a data.NeighborLoader with the Device option uploads each
// batch's labels on its goroutine, not in the training step, where the
// upload from pageable memory waited for the step's forward pass. The
// upload waits for the stream on the calling goroutine, outside the
// cache's lock.
func (d *backend) PreloadLabels(y []int) error {
	if !tune.CacheLabels || !preloadBatchLabels {
		return nil
	}
	lab, err := NewLabels(d.Device, y)
	if err != nil {
		return err
	}
	used := false
	err = d.labels.with(y, nil, func() (*Labels, error) {
		used = true
		return lab, nil
	}, func(*Labels) error { return nil })
	if !used {
		lab.buf.release() // the cache held these labels already
	}
	return err
}

// preloadBatchLabels switches PreloadLabels (off: CrossEntropy uploads a
// batch's labels in the step, as before). On since 2026-12-06
// (TestLoaderPreloadsLabels and TestSampledStepWaitsOnce, which check it
// on a recording driver, passed on an H100 in the final run that day, as
// did the device-sampled tests with it on).
var preloadBatchLabels = true

// SampleBlocksReusing is SampleBlocks whose blocks' host arrays come
// from memory that earlier blocks gave back (tune.SampleReuse): release
// gives this batch's back, after which its blocks must not be read. It
// is the capability through which data.NeighborLoader's ReuseBlocks
// saves a products-sized batch's fresh allocations.
func (d *backend) SampleBlocksReusing(g *graph.Graph, x *tensor.Tensor, seeds, fanouts []int, seed uint64) ([]graph.Block, tensor.Storage, func(), error) {
	blocks, t, arena, err := d.Device.sampleBlocks(g, x, seeds, fanouts, seed, true)
	release := func() {}
	if arena != nil {
		var once sync.Once
		release = func() { once.Do(func() { putArena(arena) }) }
	}
	if t == nil {
		return blocks, nil, release, err
	}
	return blocks, t, release, err
}

// UploadBlocks is Device.UploadBlocks as data.BlockSampler.
func (d *backend) UploadBlocks(blocks []graph.Block, x *tensor.Tensor) (tensor.Storage, error) {
	t, err := d.Device.UploadBlocks(blocks, x)
	if t == nil {
		return nil, err
	}
	return t, err
}
