package backend

import (
	"runtime"
	"sync"
	"weak"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

// GraphCache keeps one value per host graph and key K (which edge weights
// a device copy carries, say): made at the graph's first use and released
// when the host graph is garbage collected, so that a training loop
// uploads each graph once and a graph dropped by the notebook does not
// hold device memory. gnnlib/cuda keeps its device graphs in one, and
// gnnlib/devicetest's Fake charges its graph memory through one. The zero
// value is ready to use.
type GraphCache[K comparable, V any] struct {
	// Release, when set, is called with a value after its graph was
	// collected (on the runtime's cleanup goroutine).
	Release func(V)

	mu sync.Mutex
	m  map[graphKey[K]]V
}

type graphKey[K comparable] struct {
	g weak.Pointer[graph.Graph]
	k K
}

// Get returns the value for g and k, calling make (under the cache's
// lock, so once per graph and key) at the first use. An error from make
// is returned and nothing is cached.
func (c *GraphCache[K, V]) Get(g *graph.Graph, k K, make func() (V, error)) (V, error) {
	key := graphKey[K]{weak.Make(g), k}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[key]; ok {
		return v, nil
	}
	v, err := make()
	if err != nil {
		return v, err
	}
	if c.m == nil {
		c.m = map[graphKey[K]]V{}
	}
	c.m[key] = v
	runtime.AddCleanup(g, c.drop, key)
	return v, nil
}

// drop forgets key's value once its graph is gone, and releases it.
func (c *GraphCache[K, V]) drop(key graphKey[K]) {
	c.mu.Lock()
	v, ok := c.m[key]
	delete(c.m, key)
	c.mu.Unlock()
	if ok && c.Release != nil {
		c.Release(v)
	}
}

// Len returns the number of values cached.
func (c *GraphCache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
