package data

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// ErrLoader is wrapped by the errors of NewNeighborLoader given bad
// options or inputs.
var ErrLoader = errors.New("data: bad loader argument")

// NeighborLoaderOptions configure a NeighborLoader.
type NeighborLoaderOptions struct {
	// BatchSize is the number of seed nodes per mini-batch (the last batch
	// of an epoch may be smaller).
	BatchSize int
	// Fanouts holds the number of in-neighbours sampled per node, one
	// entry per layer from the seeds outwards, as PyG's num_neighbors: [25,
	// 10] samples 25 neighbours of each seed and 10 of each of those. A
	// negative entry takes all neighbours.
	Fanouts []int
	// Shuffle reorders the seeds at the start of every epoch.
	Shuffle bool
	// Seed fixes the shuffles and the samples: the same Seed gives the same
	// batches, epoch by epoch, whatever Workers is.
	Seed uint64
	// Prefetch bounds the batches sampled ahead of the consumer (0:
	// Workers, at least 2); a worker without a batch in that window
	// idles.
	Prefetch int
	// Workers is the number of sampling goroutines (0: 1).
	Workers int
	// Device, when set, feeds batches to a device backend that implements
	// BlockSampler (gnnlib/cuda's): the features move to the device once,
	// at NewNeighborLoader, each batch's rows are gathered there, and the
	// blocks' graphs are on the device when the batch is handed out (their
	// transposes built there), as are its labels where the device keeps
	// labels for its loss (gnnlib/cuda's CrossEntropy finds MiniBatch.Y
	// there). MiniBatch.X is then on the device.
	Device tensor.Backend
	// SampleOnDevice, with Device, samples on the device too
	// (BlockSampler.SampleBlocks: uniform with replacement, as
	// SampleBlocks), so only the seeds go up; without it the blocks are
	// sampled on the host (graph.SampleNeighbors, without replacement) and
	// uploaded.
	SampleOnDevice bool
	// ReuseBlocks, with SampleOnDevice, lets the device sampler build each
	// batch's blocks (their graphs' arrays and node lists) in memory that
	// an earlier batch's blocks used: a batch's Blocks are valid until the
	// next call of Next, which gives their memory back (as
	// bufio.Scanner.Bytes), so copy what must outlive the batch. Where the
	// graph's arrays make the heap large, Go's collector runs seldom and
	// fresh memory costs a page fault per 4 KiB; a products-sized batch's
	// blocks then took more time to allocate than to sample
	// (gnnlib/cuda's BENCHMARKS.md). Without a device sampler that can
	// reuse memory (blockReuser) it changes nothing.
	ReuseBlocks bool
}

// NeighborLoader yields neighbour-sampled mini-batches over seed nodes, as
// PyG's NeighborLoader and DGL's DataLoader with a NeighborSampler do:
// each batch holds the sampled blocks (graph.Block, one bipartite graph per
// layer, first layer first), the feature rows of the first block's
// sources and the labels of the seeds. Sampling runs on background
// goroutines while the consumer trains on the previous batch.
type NeighborLoader struct {
	g     *graph.Graph
	x     *tensor.Tensor
	y     []int
	seeds []int
	o     NeighborLoaderOptions
	epoch int
	dev   BlockSampler // o.Device's sampler, nil on the host
}

// NewNeighborLoader returns a loader over the seed nodes of g. x holds one
// feature row per node of g (dense or sparse), y one label per node (or is
// nil). A seed out of range or repeated, or impossible options, give an
// error wrapping ErrLoader.
func NewNeighborLoader(g *graph.Graph, x *tensor.Tensor, y []int, seeds []int, o NeighborLoaderOptions) (*NeighborLoader, error) {
	n := g.NumNodes()
	switch {
	case !g.IsSquare():
		return nil, fmt.Errorf("data: NeighborLoader: rectangular graph %v: %w", g, ErrLoader)
	case o.BatchSize < 1:
		return nil, fmt.Errorf("data: NeighborLoader: batch size %d: %w", o.BatchSize, ErrLoader)
	case len(o.Fanouts) == 0:
		return nil, fmt.Errorf("data: NeighborLoader: no fan-outs (one per layer): %w", ErrLoader)
	case o.Prefetch < 0 || o.Workers < 0:
		return nil, fmt.Errorf("data: NeighborLoader: prefetch %d, workers %d: %w", o.Prefetch, o.Workers, ErrLoader)
	case x != nil && (x.Dims() != 2 || x.Size(0) != n):
		return nil, fmt.Errorf("data: NeighborLoader: features of shape %v for %d nodes: %w", x.Shape(), n, ErrLoader)
	case x != nil && x.IsOnDevice() && (o.Device == nil || x.Device() != o.Device):
		return nil, fmt.Errorf("data: NeighborLoader: features on a device other than the Device option (keep x on the host, or set Device to its device): %w", ErrLoader)
	case o.SampleOnDevice && o.Device == nil:
		return nil, fmt.Errorf("data: NeighborLoader: SampleOnDevice without a Device: %w", ErrLoader)
	case x != nil && o.Device != nil && x.IsSparse():
		return nil, fmt.Errorf("data: NeighborLoader: sparse features with a Device (make them dense first): %w", ErrLoader)
	case y != nil && len(y) != n:
		return nil, fmt.Errorf("data: NeighborLoader: %d labels for %d nodes: %w", len(y), n, ErrLoader)
	case len(seeds) == 0:
		return nil, fmt.Errorf("data: NeighborLoader: no seed nodes: %w", ErrLoader)
	}
	seen := make(map[int]bool, len(seeds))
	for i, s := range seeds {
		if s < 0 || s >= n || seen[s] {
			return nil, fmt.Errorf("data: NeighborLoader: seed %d is node %d of %d (out of range or repeated): %w", i, s, n, ErrLoader)
		}
		seen[s] = true
	}
	if o.Workers == 0 {
		o.Workers = 1
	}
	if o.Prefetch == 0 {
		// One batch in flight per worker: with fewer, workers idle.
		o.Prefetch = max(2, o.Workers)
	}
	o.Fanouts = append([]int(nil), o.Fanouts...)
	l := &NeighborLoader{g: g, x: x, y: y, seeds: append([]int(nil), seeds...), o: o}
	if o.Device != nil {
		bs, ok := o.Device.(BlockSampler)
		if !ok {
			return nil, fmt.Errorf("data: NeighborLoader: device %v cannot build blocks (no BlockSampler): %w", o.Device, ErrLoader)
		}
		l.dev = bs
		if x != nil && !x.IsOnDevice() {
			l.x = x.Detach().To(o.Device)
		}
	}
	return l, nil
}

// Len returns the number of batches in an epoch.
func (l *NeighborLoader) Len() int { return (len(l.seeds) + l.o.BatchSize - 1) / l.o.BatchSize }

func (l *NeighborLoader) String() string {
	return fmt.Sprintf("NeighborLoader(seeds=%d, batch=%d, fanouts=%v, shuffle=%t, batches=%d)",
		len(l.seeds), l.o.BatchSize, l.o.Fanouts, l.o.Shuffle, l.Len())
}

// MiniBatch is one sampled batch.
type MiniBatch struct {
	// Blocks are the layers' graphs, Blocks[0] for the first layer; the
	// destinations of the last block are the seeds.
	Blocks []graph.Block
	// X holds the features of Blocks[0].SrcNodes, nil without features.
	X *tensor.Tensor
	// Y holds the labels of the seeds, nil without labels.
	Y []int
	// Seeds are the batch's seed nodes (ids of the whole graph).
	Seeds []int
	// Index is the batch's position in its epoch.
	Index int

	// release gives the blocks' memory back (ReuseBlocks), nil if none.
	release func()
}

// NumSampled returns the number of nodes whose features the batch reads.
func (b *MiniBatch) NumSampled() int { return len(b.Blocks[0].SrcNodes) }

// Graphs returns the blocks' graphs, first layer first, for the models'
// ForwardBlocks.
func (b *MiniBatch) Graphs() []*graph.Graph {
	gs := make([]*graph.Graph, len(b.Blocks))
	for i, bl := range b.Blocks {
		gs[i] = bl.Graph
	}
	return gs
}

// Iter starts one epoch: its goroutines begin sampling at once. Each call
// starts the next epoch (with a new shuffle). Call Close when done,
// also after an early break.
func (l *NeighborLoader) Iter() *LoaderIter {
	order := append([]int(nil), l.seeds...)
	epochSeed := mix(l.o.Seed, uint64(l.epoch))
	l.epoch++
	if l.o.Shuffle {
		r := rand.New(rand.NewPCG(epochSeed, 0x51ed2701f3a5c7b9))
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	nb := l.Len()
	it := &LoaderIter{
		results: make([]chan result, nb),
		done:    make(chan struct{}),
		tokens:  make(chan struct{}, l.o.Prefetch),
	}
	for i := range it.results {
		it.results[i] = make(chan result, 1)
	}
	jobs := make(chan int)
	// The dispatcher hands out batch numbers in order, one token each, so
	// at most Prefetch batches are sampled and not yet taken.
	it.wg.Add(1)
	go func() {
		defer it.wg.Done()
		defer close(jobs)
		for i := 0; i < nb; i++ {
			select {
			case it.tokens <- struct{}{}:
			case <-it.done:
				return
			}
			select {
			case jobs <- i:
			case <-it.done:
				return
			}
		}
	}()
	for w := 0; w < l.o.Workers; w++ {
		it.wg.Add(1)
		go func() {
			defer it.wg.Done()
			for i := range jobs {
				lo := i * l.o.BatchSize
				hi := min(lo+l.o.BatchSize, len(order))
				b, err := l.sample(order[lo:hi], i, mix(epochSeed, uint64(i)+1))
				it.sampled.Add(1)
				it.results[i] <- result{b, err} // buffered: never blocks
			}
		}()
	}
	return it
}

// sample draws one batch.
func (l *NeighborLoader) sample(seeds []int, index int, seed uint64) (*MiniBatch, error) {
	var blocks []graph.Block
	var xs tensor.Storage
	var err error
	var release func()
	if r, ok := l.dev.(blockReuser); ok && l.o.SampleOnDevice && l.o.ReuseBlocks {
		blocks, xs, release, err = r.SampleBlocksReusing(l.g, l.x, seeds, l.o.Fanouts, seed)
	} else if l.o.SampleOnDevice {
		blocks, xs, err = l.dev.SampleBlocks(l.g, l.x, seeds, l.o.Fanouts, seed)
	} else {
		blocks, err = l.g.SampleNeighbors(seeds, l.o.Fanouts, seed)
		if err == nil && l.dev != nil {
			xs, err = l.dev.UploadBlocks(blocks, l.x)
		}
	}
	if err != nil {
		return nil, err
	}
	b := &MiniBatch{Blocks: blocks, Seeds: seeds, Index: index, release: release}
	switch {
	case l.x == nil:
	case l.dev != nil:
		b.X = backend.FromStorage(xs, len(blocks[0].SrcNodes), l.x.Size(1))
	default:
		b.X = gatherRows(l.x, blocks[0].SrcNodes)
	}
	if l.y != nil {
		b.Y = make([]int, len(seeds))
		for i, s := range seeds {
			b.Y[i] = l.y[s]
		}
		// A device that keeps labels (gnnlib/cuda's CrossEntropy cache)
		// gets this batch's here, so that the step does not wait for
		// their upload.
		if p, ok := l.dev.(labelPreloader); ok {
			if err := p.PreloadLabels(b.Y); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// blockReuser is the optional capability of a BlockSampler to build a
// batch's blocks in memory that earlier blocks gave back: release gives
// this batch's back (the loader calls it once, at the next Next), after
// which the blocks are not read (gnnlib/cuda's backend).
type blockReuser interface {
	SampleBlocksReusing(g *graph.Graph, x *tensor.Tensor, seeds, fanouts []int, seed uint64) (blocks []graph.Block, feats tensor.Storage, release func(), err error)
}

// labelPreloader is the optional capability of a BlockSampler to put a
// batch's labels on the device ahead of the step, where CrossEntropy with
// the same slice finds them (gnnlib/cuda's backend).
type labelPreloader interface {
	PreloadLabels(y []int) error
}

// gatherRows copies rows of x into a new tensor without recording an
// autograd op or calling the op hook: it runs on the loader's goroutines,
// and both tensor.NoGrad and the profiler's hook are global to the
// process.
func gatherRows(x *tensor.Tensor, rows []int) *tensor.Tensor {
	if x.IsSparse() {
		indptr, indices, values := x.CSR()
		nnz := 0
		for _, r := range rows {
			nnz += indptr[r+1] - indptr[r]
		}
		ip := make([]int, 1, len(rows)+1)
		ix := make([]int, 0, nnz)
		vs := make([]float32, 0, nnz)
		for _, r := range rows {
			ix = append(ix, indices[indptr[r]:indptr[r+1]]...)
			vs = append(vs, values[indptr[r]:indptr[r+1]]...)
			ip = append(ip, len(ix))
		}
		return tensor.SparseFromCSR(len(rows), x.Size(1), ip, ix, vs)
	}
	f := x.Size(1)
	src := x.Data()
	out := make([]float32, len(rows)*f)
	for i, r := range rows {
		copy(out[i*f:i*f+f], src[r*f:r*f+f])
	}
	return tensor.Wrap(out, len(rows), f)
}

// mix derives a seed from a seed and a counter (SplitMix64's finaliser).
func mix(a, b uint64) uint64 {
	z := a + 0x9e3779b97f4a7c15*(b+1)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

type result struct {
	b   *MiniBatch
	err error
}

// LoaderIter walks one epoch of a NeighborLoader in the style of
// bufio.Scanner:
//
//	it := loader.Iter()
//	for it.Next() {
//		b := it.Batch()
//		...
//	}
//	it.Close()
//	if err := it.Err(); err != nil { ... }
type LoaderIter struct {
	results []chan result
	done    chan struct{}
	tokens  chan struct{}
	wg      sync.WaitGroup
	once    sync.Once
	next    int
	cur     *MiniBatch
	err     error
	sampled atomic.Int64 // batches sampled so far, for tests
}

// Next waits for the next batch and reports whether there is one; it is
// false at the end of the epoch, after an error and after Close. With
// ReuseBlocks, it first gives back the memory of the last batch's blocks.
func (it *LoaderIter) Next() bool {
	if c := it.cur; c != nil && c.release != nil {
		// ReuseBlocks: the last batch's blocks are done with.
		c.release()
		c.release = nil
	}
	if it.err != nil || it.next >= len(it.results) || it.closed() {
		it.cur = nil
		return false
	}
	r := <-it.results[it.next]
	<-it.tokens
	it.next++
	if r.err != nil {
		it.err = r.err
		it.cur = nil
		return false
	}
	it.cur = r.b
	return true
}

func (it *LoaderIter) closed() bool {
	select {
	case <-it.done:
		return true
	default:
		return false
	}
}

// Batch returns the batch that the last Next made current.
func (it *LoaderIter) Batch() *MiniBatch { return it.cur }

// Err returns the first sampling error, if any.
func (it *LoaderIter) Err() error { return it.err }

// Close stops the sampling goroutines and waits for them to return. It may
// be called more than once, and before the epoch ends.
func (it *LoaderIter) Close() {
	it.once.Do(func() {
		close(it.done)
		it.wg.Wait()
	})
}
