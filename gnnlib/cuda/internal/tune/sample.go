package tune

import (
	"sync"
	"time"
)

// SampleUnlocked lets gnnlib/cuda's Device.SampleBlocks hold its graph's
// lock (the sampler's node-sized scratch on the device) only while it
// queues a batch's kernels: the download, its wait for the device and the
// host work (the int32 download widened to ints, the host graphs and
// their preps) run outside it, each call with its own pinned buffers, so
// that the loader's goroutines overlap there. Off, the lock is held from
// the first kernel to the widened download, as before, and one call at a
// time downloads and widens. On by default; gnnbench's sampled part
// compares the two.
var SampleUnlocked = true

// SampleReuse lets gnnlib/cuda's sampler reuse host memory from batch to
// batch instead of allocating it: the per-call scratch of the blocks'
// preps (the transpose's row counts), and, for a data.NeighborLoader with
// ReuseBlocks, the memory of the blocks it hands out, given back when the
// loader moves to the next batch. On a graph whose arrays fill a large
// heap, Go's collector runs seldom and every allocation touches pages
// the process never used, which the kernel faults in one by one
// (BENCHMARKS.md). Off, every batch allocates its own, as before. On by
// default; gnnbench's sampled part compares the two.
var SampleReuse = true

// SamplePostLaunch lets gnnlib/cuda's sampler queue its kernels for the
// device goroutine without waiting for each driver call (as AsyncLaunch
// does for every kernel), so that the kernels of a batch, queued under
// the sampler's lock, hold it for less; a launch's error comes back from
// the batch's download. Off, each launch waits for its driver call, as
// before. On by default; gnnbench's sampled part compares the two.
var SamplePostLaunch = true

// SampleAsyncDownload lets gnnlib/cuda's sampler bring a batch back by
// copies that do not wait, polling an event after them from its own
// goroutine, so that the device goroutine goes on queueing the training
// step's kernels meanwhile; off, the copies wait for the stream on the
// device goroutine, which queues nothing else until the stream has
// drained, as before. Only the CUDA driver can (the others copy as
// before). On by default; gnnbench's sampled part compares the two.
var SampleAsyncDownload = true

// SampleParallelHost lets gnnlib/cuda's sampler build a batch's host
// blocks on a goroutine a hop and widen its download (with ReuseBlocks)
// on up to four, where the H100 machine's host took 10-15 ms a
// products-sized batch on one. Off, all on the calling goroutine, as
// before. On by default; gnnbench's sampled part compares the two.
var SampleParallelHost = true

// SampleSplit adds up where gnnlib/cuda's Device.SampleBlocks spends its
// time on the calling goroutine: waiting for the sampler's lock, queueing
// the hops' kernels, the download with its wait for the device, widening
// the int32 download to the host graphs' ints, the host graphs and preps,
// and the rest (the heavy-row upload, the device graphs' registering and
// the gather).
type SampleSplit struct {
	Mu                                           sync.Mutex
	Calls                                        int
	Lock, Queue, Download, Widen, Host, Register time.Duration
}

// SampleTiming, when not nil, adds up the split of every SampleBlocks
// call (set by tests and benchmarks only, before the calls start).
var SampleTiming *SampleSplit

// SetSampler sets every switch of gnnlib/cuda's sampler above
// (SampleUnlocked, SampleReuse, SamplePostLaunch, SampleAsyncDownload,
// SampleParallelHost) to on, and returns a function that restores them.
func SetSampler(on bool) (restore func()) {
	ps := []*bool{&SampleUnlocked, &SampleReuse, &SamplePostLaunch, &SampleAsyncDownload, &SampleParallelHost}
	old := make([]bool, len(ps))
	for i, p := range ps {
		old[i], *p = *p, on
	}
	return func() {
		for i, p := range ps {
			*p = old[i]
		}
	}
}
