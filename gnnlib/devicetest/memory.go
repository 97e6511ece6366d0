package devicetest

import (
	"runtime"
	"sync"
	"weak"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// MemStats is what a Fake's device memory holds, in bytes: every storage
// it handed out (4 bytes a value) and the device copies of the graphs its
// graph ops ran over, charged as gnnlib/cuda lays them out (the CSR and
// its transpose, int32 offsets and indices, float32 edge weights when the
// op uses them), once per graph and weighting while the host graph lives.
//
// Live counts a block until it is freed (a Storage's Free, which the
// backward pass and the layers call) or no longer reachable, as
// gnnlib/cuda's allocator takes blocks back from Free and from
// finalizers; how soon an unreachable block counts as gone depends on
// when the garbage collector runs, unless the Fake's Collect is set.
// Held counts a block until it is freed only: what a device holds when
// the collector does not run between two ResetPeak calls, so it shows
// what the code gives back itself.
type MemStats struct {
	Live, PeakLive int64
	Held, PeakHeld int64
	// Allocs counts the blocks handed out since the last ResetPeak.
	Allocs int
}

// fakeMem is a Fake's ledger of device memory.
type fakeMem struct {
	mu     sync.Mutex
	blocks []*fakeBlock // neither freed nor found unreachable
	st     MemStats
	// garbage is what was found unreachable without being freed since
	// the last ResetPeak: still held, no longer live.
	garbage int64
	// since counts the bytes charged since CollectWhen last collected.
	since int64
	// graphs remembers which graphs (and weightings) were charged, as
	// gnnlib/cuda's cache of device graphs does.
	graphs backend.GraphCache[graphWeights, struct{}]
}

// fakeBlock is one allocation in the ledger.
type fakeBlock struct {
	bytes     int64
	alive     func() bool // whether its owner is still reachable
	freed     bool
	collected bool
}

// graphWeights is which edge weights a device graph carries; each is a
// copy of its own, as in gnnlib/cuda.
type graphWeights int

const (
	noWeights   graphWeights = iota
	edgeWeights              // the host graph's Weights
	meanWeights              // 1/in-degree (MeanAggregate)
)

// charge adds a block of n bytes owned by whatever alive watches. With
// collect the collector runs first; with when set, it runs when when
// says so and the blocks it finds unreachable leave Held at once
// (Fake.CollectWhen).
func (m *fakeMem) charge(n int64, alive func() bool, collect bool, when func(since, held int64) bool) *fakeBlock {
	if when != nil {
		m.mu.Lock()
		due := when(m.since, m.st.Held)
		m.mu.Unlock()
		if due {
			runtime.GC()
			m.mu.Lock()
			m.sweep()
			m.st.Held -= m.garbage
			m.garbage, m.since = 0, 0
			m.mu.Unlock()
		}
	}
	if collect {
		runtime.GC()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.since += n
	m.sweep()
	b := &fakeBlock{bytes: n, alive: alive}
	m.blocks = append(m.blocks, b)
	m.st.Allocs++
	m.st.Live += n
	m.st.Held += n
	m.st.PeakLive = max(m.st.PeakLive, m.st.Live)
	m.st.PeakHeld = max(m.st.PeakHeld, m.st.Held)
	return b
}

// sweep drops the blocks that were freed or whose owner is unreachable.
func (m *fakeMem) sweep() {
	keep := m.blocks[:0]
	for _, b := range m.blocks {
		switch {
		case b.freed:
		case !b.alive():
			b.collected = true
			m.st.Live -= b.bytes
			m.garbage += b.bytes
		default:
			keep = append(keep, b)
		}
	}
	clear(m.blocks[len(keep):])
	m.blocks = keep
}

// free takes b back.
func (m *fakeMem) free(b *fakeBlock) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b.freed {
		return
	}
	b.freed = true
	m.st.Held -= b.bytes
	if b.collected {
		m.garbage -= b.bytes
	} else {
		m.st.Live -= b.bytes
	}
}

// newStore returns device storage over data (not copied) and charges it.
func (f *Fake) newStore(data []float32) *fakeStore {
	return f.newStoreOf(data, tensor.Float32)
}

// newStoreOf is newStore for storage of format dt, charged dt.Size()
// bytes a value.
func (f *Fake) newStoreOf(data []float32, dt tensor.DType) *fakeStore {
	s := &fakeStore{dev: f, data: data, dtype: dt}
	w := weak.Make(s)
	s.blk = f.mem.charge(int64(len(data))*int64(dt.Size()), func() bool { return w.Value() != nil }, f.Collect, f.CollectWhen)
	return s
}

// chargeGraph charges g's device copy with the given weights at its
// first use by a graph op.
func (f *Fake) chargeGraph(g *graph.Graph, mode graphWeights) {
	if mode == edgeWeights && g.Weights == nil {
		mode = noWeights
	}
	_, _ = f.mem.graphs.Get(g, mode, func() (struct{}, error) {
		n := 2*int64(g.NumNodes()+1) + 2*int64(g.NumEdges()) // offsets and indices, both orders
		if mode != noWeights {
			n += 2 * int64(g.NumEdges())
		}
		wg := weak.Make(g)
		f.mem.charge(4*n, func() bool { return wg.Value() != nil }, false, nil)
		return struct{}{}, nil
	})
}

// MemStats returns the fake device's memory (see MemStats), after
// taking back the blocks found unreachable so far.
func (f *Fake) MemStats() MemStats {
	f.mem.mu.Lock()
	defer f.mem.mu.Unlock()
	f.mem.sweep()
	return f.mem.st
}

// ResetPeak runs the garbage collector, takes back every block that is
// no longer reachable (from Held too), and starts the peaks and the
// allocation count again from what is left.
func (f *Fake) ResetPeak() {
	runtime.GC()
	f.mem.mu.Lock()
	defer f.mem.mu.Unlock()
	f.mem.sweep()
	f.mem.st.Held -= f.mem.garbage
	f.mem.garbage = 0
	f.mem.st.PeakLive, f.mem.st.PeakHeld = f.mem.st.Live, f.mem.st.Held
	f.mem.st.Allocs = 0
}

// Memory reports Live as InUse and its peak as Peak, so that
// tensor.MemoryOf reads a Fake as it reads a GPU; Total, Free and
// Reserved are zero.
func (f *Fake) Memory() (tensor.Memory, error) {
	s := f.MemStats()
	return tensor.Memory{InUse: s.Live, Peak: s.PeakLive}, nil
}

var _ tensor.MemoryReporter = (*Fake)(nil)
