package data_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// reuser is a devicetest.Fake whose blocks come from
// SampleBlocksReusing, the capability ReuseBlocks uses: it counts each
// batch's releases (by its first block's graph) and, at a release,
// overwrites the batch's node lists, as reused memory would be.
type reuser struct {
	*devicetest.Fake
	mu       sync.Mutex
	released map[*graph.Graph]int
	blocks   map[*graph.Graph][]graph.Block
}

func (r *reuser) SampleBlocksReusing(g *graph.Graph, x *tensor.Tensor, seeds, fanouts []int, seed uint64) ([]graph.Block, tensor.Storage, func(), error) {
	blocks, xs, err := r.SampleBlocks(g, x, seeds, fanouts, seed)
	if err != nil {
		return nil, nil, nil, err
	}
	key := blocks[0].Graph
	r.mu.Lock()
	r.blocks[key] = blocks
	r.mu.Unlock()
	return blocks, xs, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.released[key]++
		for _, b := range blocks {
			for i := range b.SrcNodes {
				b.SrcNodes[i] = -1
			}
		}
	}, nil
}

// TestNeighborLoaderReuseBlocks: with ReuseBlocks and a sampler that can
// reuse memory, each batch's blocks are given back exactly once, when
// Next moves on (never the current one, never twice; the Next that ends
// the epoch gives the last batch back),
// and a batch read before that has the blocks of a loader without
// ReuseBlocks; with SampleOnDevice off, or without ReuseBlocks, nothing
// is given back.
func TestNeighborLoaderReuseBlocks(t *testing.T) {
	g, err := graph.ErdosRenyiM(400, 3000, 2)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Randn(1, 400, 4)
	seeds := make([]int, 400)
	for i := range seeds {
		seeds[i] = i
	}
	r := &reuser{Fake: &devicetest.Fake{}, released: map[*graph.Graph]int{}, blocks: map[*graph.Graph][]graph.Block{}}
	o := data.NeighborLoaderOptions{BatchSize: 50, Fanouts: []int{5, 3}, Shuffle: true, Seed: 4, Workers: 3, Device: r, SampleOnDevice: true}
	ref, err := data.NewNeighborLoader(g, x, nil, seeds, o)
	if err != nil {
		t.Fatal(err)
	}
	want := ref.Iter()
	var refs [][]graph.Block
	for want.Next() {
		refs = append(refs, want.Batch().Blocks)
	}
	want.Close()
	if len(r.released) != 0 {
		t.Fatalf("without ReuseBlocks, %d batches were given back", len(r.released))
	}
	o.ReuseBlocks = true
	l, err := data.NewNeighborLoader(g, x, nil, seeds, o)
	if err != nil {
		t.Fatal(err)
	}
	it := l.Iter()
	defer it.Close()
	var prev *graph.Graph
	n := 0
	for it.Next() {
		b := it.Batch()
		cur := b.Blocks[0].Graph
		r.mu.Lock()
		gotPrev, gotCur := r.released[prev], r.released[cur]
		r.mu.Unlock()
		if prev != nil && gotPrev != 1 {
			t.Fatalf("batch %d: the batch before was given back %d times, want 1", n, gotPrev)
		}
		if gotCur != 0 {
			t.Fatalf("batch %d: the current batch was given back", n)
		}
		for i, bl := range b.Blocks {
			w := refs[n][i]
			if !slices.Equal(bl.SrcNodes, w.SrcNodes) || !slices.Equal(bl.Graph.Indptr, w.Graph.Indptr) || !slices.Equal(bl.Graph.Indices, w.Graph.Indices) {
				t.Fatalf("batch %d block %d differs from the loader's without ReuseBlocks", n, i)
			}
		}
		prev = cur
		n++
	}
	if err := it.Err(); err != nil || n != l.Len() {
		t.Fatalf("%d batches of %d, error %v", n, l.Len(), err)
	}
	r.mu.Lock()
	total := 0
	for _, c := range r.released {
		total += c
	}
	r.mu.Unlock()
	// The Next that ends the epoch gave the last batch back too.
	if total != n {
		t.Errorf("%d releases over %d batches, want %d", total, n, n)
	}
}
