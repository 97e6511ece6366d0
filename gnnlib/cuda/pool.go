package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
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

	mu      sync.Mutex
	pending []*buffer // released by finalizers or Free from any goroutine
}

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
	if l := p.free[c]; len(l) > 0 {
		ptr := l[len(l)-1]
		p.free[c] = l[:len(l)-1]
		p.account(c)
		return ptr, c, nil
	}
	ptr, err := p.drv.alloc(c)
	if err != nil {
		// Out of memory: give the cached blocks back and try once more.
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
	if p.inUse > p.peak {
		p.peak = p.inUse
	}
}

func (p *pool) put(ptr uintptr, c int64) {
	p.inUse -= c
	p.free[c] = append(p.free[c], ptr)
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
