package cuda

import (
	"bytes"
	"runtime"
	"slices"
	"sync"
	"unsafe"
	"weak"
)

// A training loop passes the same label slice (and the same row set, or
// nil) to CrossEntropy every epoch. Uploading those labels each call cost
// 1.3–1.6 ms of an arxiv-sized epoch of 7.4 ms (gnnbench -profile on the
// H100): the copy from pageable memory waits for the stream, so the host
// stops queueing work until the device has drained it. sliceCache keeps
// the device copy instead, keyed weakly by the caller's slices, as
// tensor/backend.GraphCache keeps device graphs: an entry goes when either
// slice is garbage collected.
//
// A cache keyed by a slice's address alone would return stale labels once
// the caller wrote new values into the same slice (a notebook that
// shuffles its labels in place, say), so each entry keeps a host copy of
// what it uploaded and every lookup compares it with the slices as they
// are now: a read of the labels on the host, which does not wait for the
// device (about 0.1 ms for 169k labels), against a copy that does.

// sliceCacheSize bounds the entries per device, so that a loop passing
// fresh slices every call (sampled mini-batches) holds at most this many
// device copies between garbage collections; the oldest goes first.
const sliceCacheSize = 16

// sliceKey names a pair of slices by their first elements' addresses and
// their lengths, weakly: an empty or nil slice is the zero pointer.
type sliceKey struct {
	a, b   weak.Pointer[int]
	na, nb int
	// nilB tells a nil b (all rows) from an empty one.
	nilB bool
}

func keyOf(a, b []int) sliceKey {
	k := sliceKey{na: len(a), nb: len(b), nilB: b == nil}
	if len(a) > 0 {
		k.a = weak.Make(&a[0])
	}
	if len(b) > 0 {
		k.b = weak.Make(&b[0])
	}
	return k
}

type sliceEntry[V any] struct {
	a, b []int // host copies of the slices the value was made from
	v    V
}

// sliceCache keeps one value per pair of int slices (labels and rows),
// made from their contents, with the contents checked at every lookup.
// The zero value, with release set, is ready to use.
type sliceCache[V any] struct {
	// release frees a value that left the cache: replaced, evicted, or
	// its slices collected (then on the runtime's cleanup goroutine).
	release func(V)

	mu    sync.Mutex
	m     map[sliceKey]*sliceEntry[V]
	order []sliceKey // oldest first
	// made counts the values made, for tests.
	made int
}

// with calls use with the value for a and b, made by make when there is
// none or when the slices' contents differ from those the cached value
// was made from (the old value is then released). use runs under the
// cache's lock, so that no other caller releases the value (and the
// allocator hands its memory out again) before use has queued its work
// on the stream. An error from make is returned and nothing is cached.
func (c *sliceCache[V]) with(a, b []int, make func() (V, error), use func(V) error) error {
	k := keyOf(a, b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		if intsEqual(e.a, a) && intsEqual(e.b, b) {
			return use(e.v)
		}
		c.removeLocked(k)
	}
	v, err := make()
	if err != nil {
		return err
	}
	c.made++
	if c.m == nil {
		c.m = map[sliceKey]*sliceEntry[V]{}
	}
	for len(c.order) >= sliceCacheSize {
		c.removeLocked(c.order[0])
	}
	c.m[k] = &sliceEntry[V]{a: slices.Clone(a), b: slices.Clone(b), v: v}
	c.order = append(c.order, k)
	// Whichever slice goes first takes the entry with it; drop finds
	// nothing the second time (or after a replacement: then the key's
	// new entry belongs to live slices, and drop must not touch it, which
	// the entry pointer check ensures).
	e := c.m[k]
	if len(a) > 0 {
		runtime.AddCleanup(&a[0], c.drop, dropArg[V]{k, e})
	}
	if len(b) > 0 {
		runtime.AddCleanup(&b[0], c.drop, dropArg[V]{k, e})
	}
	return use(v)
}

// intsEqual is slices.Equal for int slices, comparing their memory with
// bytes.Equal (the runtime's vectorised memequal): 169,343 labels, a
// lookup's comparison at every CrossEntropy call, in less time than the
// element loop.
func intsEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	n := len(a) * int(unsafe.Sizeof(int(0)))
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), n), unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), n))
}

type dropArg[V any] struct {
	k sliceKey
	e *sliceEntry[V]
}

// drop forgets an entry once one of its slices was collected.
func (c *sliceCache[V]) drop(d dropArg[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[d.k] == d.e {
		c.removeLocked(d.k)
	}
}

func (c *sliceCache[V]) removeLocked(k sliceKey) {
	e, ok := c.m[k]
	if !ok {
		return
	}
	delete(c.m, k)
	if i := slices.Index(c.order, k); i >= 0 {
		c.order = slices.Delete(c.order, i, i+1)
	}
	if c.release != nil {
		c.release(e.v)
	}
}

// len returns the number of values cached.
func (c *sliceCache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
