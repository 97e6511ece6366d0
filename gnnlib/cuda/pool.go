package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// buffer is one block of device memory handed out by the pool.
type buffer struct {
	ptr   uintptr
	bytes int64 // size class
	dev   *Device
	once  sync.Once
}

// pool is the caching allocator: freed blocks go to a free list per size
// class and are reused without a driver call, so a training step allocates
// nothing from the driver after its first epoch. Its driver calls (alloc,
// free) run on the device goroutine; its bookkeeping is guarded by mu, so
// that a cached block can be handed out on any goroutine (take: the fast
// path of newBuffer, which then costs no round trip to the device
// goroutine), and finalizers and Free return blocks from any goroutine.
type pool struct {
	drv driver

	mu       sync.Mutex
	free     map[int64][]uintptr
	inUse    int64
	peak     int64
	reserved int64
	// sinceGC counts the bytes handed out since the pool last asked for a
	// garbage collection: device tensors made by tensor ops are freed by
	// finalizers, and their Go headers are too small for the Go heap to
	// trigger collections by itself.
	sinceGC int64
	// collecting is set while a collection the pool started runs, so
	// that it starts one at a time.
	collecting atomic.Bool
	pending    []*buffer // released by finalizers or Free, not yet on a free list
	closed     bool      // released: take hands out nothing

	// live mirrors inUse for readers on other goroutines (the memory
	// tracker of gnnlib/prof), which must not queue work on the device.
	live atomic.Int64
}

// gcDue reports whether the pool, having handed out since bytes since
// the garbage collection it last started, with inUse bytes in use, starts
// another: once since passes a quarter of inUse (at least gcMin), so that
// the blocks whose tensors are unreachable but not yet finalised (the
// activations and gradients that tensor ops make and nobody frees) stay
// near a quarter of what is in use, not up to a fixed gcEvery as before
// (tune.PoolGCFixed), which let a 1.5 GiB arxiv-sized epoch carry up to
// 1 GiB of them. The Fake ledger's emulation (gnnlib/nn's
// BenchmarkEpochDeviceMemory) estimates what this saves.
func gcDue(since, inUse int64) bool {
	if tune.PoolGCFixed {
		return since > gcEvery
	}
	return since > max(gcMin, inUse/gcDiv)
}

const (
	gcEvery = 1 << 30  // tune.PoolGCFixed's period
	gcMin   = 64 << 20 // the shortest period
	gcDiv   = 4        // the period as a fraction of the bytes in use
)

func (p *pool) init(drv driver) {
	p.drv = drv
	p.free = map[int64][]uintptr{}
}

// sizeClass rounds a request up: powers of two up to 1 MiB, then multiples
// of 2 MiB, so large tensors waste at most 2 MiB each.
func sizeClass(n int64) int64 {
	if n <= 256 {
		return 256
	}
	if n <= 1<<20 {
		c := int64(256)
		for c < n {
			c <<= 1
		}
		return c
	}
	const step = 2 << 20
	return (n + step - 1) / step * step
}

// take hands out a cached block of class c if one is free. It may run on
// any goroutine.
func (p *pool) take(c int64) (uintptr, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.collectLocked()
	l := p.free[c]
	if p.closed || len(l) == 0 {
		return 0, false
	}
	ptr := l[len(l)-1]
	p.free[c] = l[:len(l)-1]
	p.accountLocked(c)
	return ptr, true
}

// tryGet returns a block of at least n bytes, a cached one or one from
// the driver, without giving cached blocks back to the driver: err is
// the driver's when it has no memory left. It runs on the device
// goroutine.
func (p *pool) tryGet(n int64) (uintptr, int64, error) {
	c := sizeClass(n)
	if ptr, ok := p.take(c); ok {
		return ptr, c, nil
	}
	ptr, err := p.alloc(c)
	return ptr, c, err
}

// alloc takes a block of class c from the driver and counts it reserved
// and handed out.
func (p *pool) alloc(c int64) (uintptr, error) {
	ptr, err := p.drv.alloc(c)
	if err != nil {
		return 0, err
	}
	p.mu.Lock()
	p.reserved += c
	p.accountLocked(c)
	p.mu.Unlock()
	return ptr, nil
}

// get returns a block of at least n bytes: a cached one, or one from the
// driver, which it makes room for when it is full. It runs on the device
// goroutine.
func (p *pool) get(n int64) (uintptr, int64, error) {
	ptr, c, err := p.tryGet(n)
	if err == nil {
		return ptr, c, nil
	}
	// Out of memory: collect the garbage, whose finalizers return blocks,
	// give the cached blocks back and try once more.
	p.reclaim(c)
	if ptr, ok := p.take(c); ok {
		return ptr, c, nil
	}
	if terr := p.trim(); terr != nil {
		return 0, 0, errors.Join(err, terr)
	}
	if ptr, err = p.alloc(c); err != nil {
		p.mu.Lock()
		inUse := p.inUse
		p.mu.Unlock()
		return 0, 0, fmt.Errorf("gnnlib/cuda: allocate %d bytes (%d in use): %w", c, inUse, err)
	}
	return ptr, c, nil
}

// accountLocked counts a block of class c handed out (p.mu held).
func (p *pool) accountLocked(c int64) {
	p.inUse += c
	p.live.Store(p.inUse)
	if p.inUse > p.peak {
		p.peak = p.inUse
	}
	if p.sinceGC += c; gcDue(p.sinceGC, p.inUse) {
		p.sinceGC = 0
		if p.collecting.CompareAndSwap(false, true) {
			go func() {
				runtime.GC()
				p.collecting.Store(false)
			}()
		}
	}
}

// putLocked returns a block to its free list (p.mu held).
func (p *pool) putLocked(ptr uintptr, c int64) {
	p.inUse -= c
	p.live.Store(p.inUse)
	p.free[c] = append(p.free[c], ptr)
}

// reclaim runs a garbage collection and waits a little for the finalizers
// it queues to return blocks (at most 200 ms, less once a block of class c
// is back).
func (p *pool) reclaim(c int64) {
	runtime.GC()
	for i := 0; i < 40; i++ {
		time.Sleep(5 * time.Millisecond)
		p.mu.Lock()
		p.collectLocked()
		back := len(p.free[c]) > 0
		p.mu.Unlock()
		if back {
			return
		}
	}
}

// collectLocked moves released blocks to the free lists (p.mu held).
func (p *pool) collectLocked() {
	for _, b := range p.pending {
		p.putLocked(b.ptr, b.bytes)
	}
	p.pending = nil
}

// stats returns the bytes in use, the peak and the bytes reserved.
func (p *pool) stats() (inUse, peak, reserved int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.collectLocked()
	return p.inUse, p.peak, p.reserved
}

// resetPeak sets the peak to the bytes in use now.
func (p *pool) resetPeak() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.collectLocked()
	p.peak = p.inUse
}

// trim frees every cached block; it runs on the device goroutine.
func (p *pool) trim() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.collectLocked()
	var errs []error
	for c, l := range p.free {
		for _, ptr := range l {
			if err := p.drv.free(ptr); err != nil {
				errs = append(errs, err)
			}
			p.reserved -= c
		}
		delete(p.free, c)
	}
	return errors.Join(errs...)
}

// release frees the cached blocks when the device closes; take hands out
// nothing afterwards.
func (p *pool) release() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.trim()
}

// newBuffer allocates n bytes on d; a finalizer returns the block to the
// pool if the owner forgets to call release.
func (d *Device) newBuffer(n int64) (*buffer, error) {
	b := &buffer{dev: d}
	// A cached block needs no driver call, so no round trip to the device
	// goroutine (tune.PoolFastPath).
	if c := sizeClass(n); tune.PoolFastPath {
		if ptr, ok := d.pool.take(c); ok {
			b.ptr, b.bytes = ptr, c
			runtime.SetFinalizer(b, (*buffer).release)
			return b, nil
		}
	}
	// While launches are recorded (GraphReplay), a block from the driver
	// is taken without sending the recorded segment first: the block is
	// new to every recorded launch, and a training step whose
	// intermediates wait for the garbage collector takes some each step,
	// which would otherwise cut its segment short at every one and leave
	// no sequence long enough, and alike from step to step, to replay.
	// A device too full for the block sends the segment, then makes
	// room (get), since the recorded launches may read the cached blocks
	// it gives back.
	if d.replaying() {
		var err error
		if derr := d.doUnrecorded(func() { b.ptr, b.bytes, err = d.pool.tryGet(n) }); derr != nil {
			return nil, derr
		}
		if err == nil {
			runtime.SetFinalizer(b, (*buffer).release)
			return b, nil
		}
	}
	err := d.do(func(driver) error {
		var err error
		b.ptr, b.bytes, err = d.pool.get(n)
		return err
	})
	if err != nil {
		return nil, err
	}
	runtime.SetFinalizer(b, (*buffer).release)
	return b, nil
}

// release returns the block to its pool; it is idempotent and may run on
// any goroutine (a finalizer's too), so it only queues the block.
func (b *buffer) release() {
	b.once.Do(func() {
		runtime.SetFinalizer(b, nil)
		p := &b.dev.pool
		p.mu.Lock()
		p.pending = append(p.pending, b)
		p.mu.Unlock()
	})
}
