package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
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
// nothing from the driver after its first epoch. It runs on the device
// goroutine only, except for the pending list that finalizers append to.
type pool struct {
	drv      driver
	free     map[int64][]uintptr
	inUse    int64
	peak     int64
	reserved int64
	// live mirrors inUse for readers on other goroutines (the memory
	// tracker of gnnlib/prof), which must not queue work on the device.
	live atomic.Int64

	// sinceGC counts the bytes handed out since the pool last asked for a
	// garbage collection: device tensors made by tensor ops are freed by
	// finalizers, and their Go headers are too small for the Go heap to
	// trigger collections by itself.
	sinceGC int64

	mu      sync.Mutex
	pending []*buffer // released by finalizers or Free from any goroutine
}

// gcEvery is how many bytes the pool hands out between the garbage
// collections it starts.
const gcEvery = 1 << 30

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

// get returns a block of at least n bytes.
func (p *pool) get(n int64) (uintptr, int64, error) {
	p.collect()
	c := sizeClass(n)
	if p.sinceGC += c; p.sinceGC > gcEvery {
		p.sinceGC = 0
		go runtime.GC()
	}
	if l := p.free[c]; len(l) > 0 {
		ptr := l[len(l)-1]
		p.free[c] = l[:len(l)-1]
		p.account(c)
		return ptr, c, nil
	}
	ptr, err := p.drv.alloc(c)
	if err != nil {
		// Out of memory: collect the garbage, whose finalizers return
		// blocks, give the cached blocks back and try once more.
		p.reclaim(c)
		if l := p.free[c]; len(l) > 0 {
			ptr := l[len(l)-1]
			p.free[c] = l[:len(l)-1]
			p.account(c)
			return ptr, c, nil
		}
		if terr := p.trim(); terr != nil {
			return 0, 0, errors.Join(err, terr)
		}
		if ptr, err = p.drv.alloc(c); err != nil {
			return 0, 0, fmt.Errorf("gnnlib/cuda: allocate %d bytes (%d in use): %w", c, p.inUse, err)
		}
	}
	p.reserved += c
	p.account(c)
	return ptr, c, nil
}

func (p *pool) account(c int64) {
	p.inUse += c
	p.live.Store(p.inUse)
	if p.inUse > p.peak {
		p.peak = p.inUse
	}
}

func (p *pool) put(ptr uintptr, c int64) {
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
		p.collect()
		if len(p.free[c]) > 0 {
			return
		}
	}
}

// collect moves blocks released from other goroutines to the free lists.
func (p *pool) collect() {
	p.mu.Lock()
	pend := p.pending
	p.pending = nil
	p.mu.Unlock()
	for _, b := range pend {
		p.put(b.ptr, b.bytes)
	}
}

// trim frees every cached block.
func (p *pool) trim() error {
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

func (p *pool) release() {
	p.collect()
	p.trim()
}

// newBuffer allocates n bytes on d; a finalizer returns the block to the
// pool if the owner forgets to call release.
func (d *Device) newBuffer(n int64) (*buffer, error) {
	b := &buffer{dev: d}
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
