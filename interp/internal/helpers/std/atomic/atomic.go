// Package atomic holds atomic.Pointer in cells (genericatomic.go in
// interp): atomic.go is the interpreted generic type the session writes
// atomic.Pointer[T] as, decl.go the declaration that go/types sees.
package atomic

//lint:file-ignore U1000 the session evaluates this source; nothing here calls it

import __gnnlab_sync "sync"

type __gnnlab_atomic_Pointer[T any] struct {
	mu __gnnlab_sync.Mutex
	p  *T
}

func (x *__gnnlab_atomic_Pointer[T]) Load() *T {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.p
}

func (x *__gnnlab_atomic_Pointer[T]) Store(val *T) {
	x.mu.Lock()
	x.p = val
	x.mu.Unlock()
}

func (x *__gnnlab_atomic_Pointer[T]) Swap(new *T) *T {
	x.mu.Lock()
	old := x.p
	x.p = new
	x.mu.Unlock()
	return old
}

func (x *__gnnlab_atomic_Pointer[T]) CompareAndSwap(old, new *T) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.p != old {
		return false
	}
	x.p = new
	return true
}
