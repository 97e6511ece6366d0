package data

import (
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// loaderGraph is a 300-node SBM with 4 features per node, labels and all
// nodes as seeds.
func loaderGraph(t testing.TB) (*graph.Graph, *tensor.Tensor, []int, []int) {
	t.Helper()
	g, x, y, err := graph.SBM(graph.SBMOptions{Sizes: []int{100, 100, 100}, PIn: 0.1, POut: 0.01, Features: 4, Signal: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([]int, g.NumNodes())
	for i := range seeds {
		seeds[i] = i
	}
	return g, tensor.Wrap(x, g.NumNodes(), 4), y, seeds
}

func collectEpoch(t *testing.T, it *LoaderIter) []*MiniBatch {
	t.Helper()
	defer it.Close()
	var bs []*MiniBatch
	for it.Next() {
		bs = append(bs, it.Batch())
	}
	if err := it.Err(); err != nil {
		t.Fatalf("epoch: %v", err)
	}
	return bs
}

func TestNeighborLoaderBatches(t *testing.T) {
	g, x, y, seeds := loaderGraph(t)
	fan := []int{5, 3}
	l, err := NewNeighborLoader(g, x, y, seeds, NeighborLoaderOptions{BatchSize: 64, Fanouts: fan, Shuffle: true, Seed: 7, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 5 {
		t.Errorf("Len() = %d, want 5", l.Len())
	}
	bs := collectEpoch(t, l.Iter())
	if len(bs) != 5 {
		t.Fatalf("epoch gave %d batches, want 5", len(bs))
	}
	var all []int
	for i, b := range bs {
		want := 64
		if i == 4 {
			want = 300 - 4*64
		}
		if len(b.Seeds) != want || b.Index != i {
			t.Errorf("batch %d: %d seeds, index %d; want %d seeds, index %d", i, len(b.Seeds), b.Index, want, i)
		}
		all = append(all, b.Seeds...)
		if last := b.Blocks[len(b.Blocks)-1]; !slices.Equal(last.DstNodes, b.Seeds) {
			t.Errorf("batch %d: last block ends at %v, want the seeds", i, last.DstNodes)
		}
		// Layer i's block has fan-out fan[len-1-i].
		for k, bl := range b.Blocks {
			f := fan[len(fan)-1-k]
			for v, d := range bl.Graph.InDegrees() {
				if full := len(g.Neighbors(bl.DstNodes[v])); d != min(f, full) {
					t.Fatalf("batch %d block %d: node %d has %d sampled in-edges, want min(%d, %d)", i, k, bl.DstNodes[v], d, f, full)
				}
			}
		}
		src := b.Blocks[0].SrcNodes
		if b.NumSampled() != len(src) || b.X.Size(0) != len(src) {
			t.Fatalf("batch %d: X has %d rows for %d sources", i, b.X.Size(0), len(src))
		}
		for r, v := range src {
			if !slices.Equal(b.X.Data()[r*4:r*4+4], x.Data()[v*4:v*4+4]) {
				t.Fatalf("batch %d: X row %d differs from x row %d", i, r, v)
			}
		}
		for j, s := range b.Seeds {
			if b.Y[j] != y[s] {
				t.Fatalf("batch %d: Y[%d] = %d, want y[%d] = %d", i, j, b.Y[j], s, y[s])
			}
		}
	}
	slices.Sort(all)
	if !slices.Equal(all, seeds) {
		t.Errorf("an epoch's seeds are not each seed once")
	}
	if slices.Equal(bs[0].Seeds, seeds[:64]) {
		t.Errorf("Shuffle: the first batch is the first 64 seeds in order")
	}
}

// TestNeighborLoaderDeterministic checks that the batches depend on Seed
// and the epoch only, not on the number of workers.
func TestNeighborLoaderDeterministic(t *testing.T) {
	g, x, y, seeds := loaderGraph(t)
	epochs := func(workers int, seed uint64) [][]*MiniBatch {
		l, err := NewNeighborLoader(g, x, y, seeds, NeighborLoaderOptions{BatchSize: 50, Fanouts: []int{4, 4}, Shuffle: true, Seed: seed, Workers: workers, Prefetch: 3})
		if err != nil {
			t.Fatal(err)
		}
		return [][]*MiniBatch{collectEpoch(t, l.Iter()), collectEpoch(t, l.Iter())}
	}
	same := func(a, b []*MiniBatch) bool {
		for i := range a {
			if !slices.Equal(a[i].Seeds, b[i].Seeds) {
				return false
			}
			for k := range a[i].Blocks {
				ga, gb := a[i].Blocks[k], b[i].Blocks[k]
				if !slices.Equal(ga.SrcNodes, gb.SrcNodes) || !slices.Equal(ga.Graph.Indices, gb.Graph.Indices) {
					return false
				}
			}
		}
		return true
	}
	one, four, other := epochs(1, 9), epochs(4, 9), epochs(1, 10)
	for e := range one {
		if !same(one[e], four[e]) {
			t.Errorf("epoch %d: 1 and 4 workers sampled different batches", e)
		}
	}
	if same(one[0], one[1]) {
		t.Errorf("two epochs gave the same batches")
	}
	if same(one[0], other[0]) {
		t.Errorf("seeds 9 and 10 gave the same batches")
	}
}

// TestNeighborLoaderPrefetch checks that the samplers stay at most
// Prefetch batches ahead of a consumer that stops taking batches, and
// that they fill that window: by default one batch a worker, at least
// two (the default was two whatever Workers was, so that two of four
// workers idled).
func TestNeighborLoaderPrefetch(t *testing.T) {
	g, x, y, seeds := loaderGraph(t)
	for _, c := range []struct{ prefetch, workers, window int }{{1, 2, 1}, {3, 2, 3}, {0, 4, 4}, {0, 1, 2}} {
		pre := c.window
		l, err := NewNeighborLoader(g, x, y, seeds, NeighborLoaderOptions{BatchSize: 10, Fanouts: []int{3}, Prefetch: c.prefetch, Workers: c.workers})
		if err != nil {
			t.Fatal(err)
		}
		it := l.Iter()
		for taken := 0; taken < 3; taken++ {
			// Wait (bounded) until the samplers have filled the window.
			for deadline := time.Now().Add(10 * time.Second); it.sampled.Load() < int64(taken+pre) && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			// Give them the chance to overrun it, which they must not.
			for i := 0; i < 100; i++ {
				runtime.Gosched()
			}
			switch got := it.sampled.Load(); {
			case got > int64(taken+pre):
				t.Errorf("prefetch %d, %d batches taken: %d sampled, want at most %d", pre, taken, got, taken+pre)
			case got < int64(taken+pre):
				t.Fatalf("prefetch %d, %d batches taken: only %d sampled after 10 s, want %d", pre, taken, got, taken+pre)
			}
			if !it.Next() {
				t.Fatalf("Next() = false at batch %d", taken)
			}
		}
		it.Close()
	}
}

// TestNeighborLoaderClose breaks out of epochs early and checks that
// Close leaves no goroutine behind, and that Next is false after it.
func TestNeighborLoaderClose(t *testing.T) {
	g, x, y, seeds := loaderGraph(t)
	before := runtime.NumGoroutine()
	l, err := NewNeighborLoader(g, x, y, seeds, NeighborLoaderOptions{BatchSize: 8, Fanouts: []int{5, 5}, Workers: 3, Prefetch: 4})
	if err != nil {
		t.Fatal(err)
	}
	for e := 0; e < 5; e++ {
		it := l.Iter()
		for i := 0; i < e && it.Next(); i++ {
		}
		it.Close()
		it.Close() // twice is fine
		if it.Next() {
			t.Fatalf("Next() = true after Close")
		}
	}
	// Goroutines that called wg.Done may still be exiting: wait, bounded.
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(10 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	if after > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after closing the epochs:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

func TestNeighborLoaderSparse(t *testing.T) {
	g, x, y, seeds := loaderGraph(t)
	sp := tensor.SparseFromDense(x.Clamp(0, 10)) // about half the entries zero
	l, err := NewNeighborLoader(g, sp, y, seeds[:20], NeighborLoaderOptions{BatchSize: 20, Fanouts: []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	b := collectEpoch(t, l.Iter())[0]
	if !b.X.IsSparse() {
		t.Fatalf("batch X of sparse features is dense")
	}
	want := sp.ToDense().IndexSelect(b.Blocks[0].SrcNodes)
	if !tensor.AllClose(b.X.ToDense(), want, 0, 0) {
		t.Errorf("sparse batch X differs from the gathered rows")
	}
}

func TestNeighborLoaderErrors(t *testing.T) {
	g, x, y, seeds := loaderGraph(t)
	ok := NeighborLoaderOptions{BatchSize: 4, Fanouts: []int{2}}
	bip, _ := graph.NewBipartite(3, 2, []int{0}, []int{1}, nil)
	tests := []struct {
		name  string
		g     *graph.Graph
		x     *tensor.Tensor
		y     []int
		seeds []int
		o     NeighborLoaderOptions
	}{
		{"batch size 0", g, x, y, seeds, NeighborLoaderOptions{Fanouts: []int{2}}},
		{"no fanouts", g, x, y, seeds, NeighborLoaderOptions{BatchSize: 4}},
		{"negative prefetch", g, x, y, seeds, NeighborLoaderOptions{BatchSize: 4, Fanouts: []int{2}, Prefetch: -1}},
		{"short features", g, x.Narrow(0, 0, 10), y, seeds, ok},
		{"short labels", g, x, y[:5], seeds, ok},
		{"seed out of range", g, x, y, []int{0, 300}, ok},
		{"seed repeated", g, x, y, []int{1, 2, 1}, ok},
		{"no seeds", g, x, y, nil, ok},
		{"rectangular graph", bip, nil, nil, []int{0}, ok},
	}
	for _, tt := range tests {
		if _, err := NewNeighborLoader(tt.g, tt.x, tt.y, tt.seeds, tt.o); !errors.Is(err, ErrLoader) {
			t.Errorf("NewNeighborLoader(%s) = %v, want ErrLoader", tt.name, err)
		}
	}
}
