package data_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// CheckBlocks checks the invariants of SampleBlocks' blocks (and of the
// device sampler's, which gnnlib/cuda's tests check through it).
func checkBlocks(t *testing.T, g *graph.Graph, seeds, fanouts []int, blocks []graph.Block) {
	t.Helper()
	if len(blocks) != len(fanouts) {
		t.Fatalf("%d blocks for %d fan-outs", len(blocks), len(fanouts))
	}
	dst := seeds
	for hop, fan := range fanouts {
		b := blocks[len(fanouts)-1-hop]
		if !slices.Equal(b.DstNodes, dst) {
			t.Fatalf("hop %d: destinations are not the last hop's sources", hop)
		}
		bg := b.Graph
		if bg.NumNodes() != len(dst) || bg.NumSrc() != len(b.SrcNodes) {
			t.Fatalf("hop %d: block of %d×%d for %d destinations, %d sources", hop, bg.NumNodes(), bg.NumSrc(), len(dst), len(b.SrcNodes))
		}
		// Sources: the destinations first, then new nodes in increasing id,
		// each once (a bijection onto the next hop's node list).
		if !slices.Equal(b.SrcNodes[:len(dst)], dst) {
			t.Fatalf("hop %d: sources do not start with the destinations", hop)
		}
		fresh := b.SrcNodes[len(dst):]
		if !slices.IsSorted(fresh) {
			t.Fatalf("hop %d: new sources not in increasing id", hop)
		}
		seen := map[int]bool{}
		for _, u := range b.SrcNodes {
			if seen[u] {
				t.Fatalf("hop %d: source node %d listed twice", hop, u)
			}
			seen[u] = true
		}
		used := map[int]bool{}
		for i, v := range dst {
			row := bg.Neighbors(i)
			d := len(g.Neighbors(v))
			want := fan
			if d == 0 {
				want = 0
			} else if fan < 0 {
				want = d
			}
			if len(row) != want {
				t.Fatalf("hop %d: row %d (node %d, degree %d) has %d edges, want %d", hop, i, v, d, len(row), want)
			}
			if !slices.IsSorted(row) {
				t.Fatalf("hop %d: row %d not sorted", hop, i)
			}
			for _, u := range row {
				if !slices.Contains(g.Neighbors(v), b.SrcNodes[u]) {
					t.Fatalf("hop %d: edge %d -> %d is not in the graph", hop, b.SrcNodes[u], v)
				}
				used[u] = true
			}
		}
		for k := len(dst); k < len(b.SrcNodes); k++ {
			if !used[k] {
				t.Fatalf("hop %d: new source %d (node %d) has no edge", hop, k, b.SrcNodes[k])
			}
		}
		dst = b.SrcNodes
	}
}

func testGraph(t *testing.T) *graph.Graph {
	g, err := graph.BarabasiAlbert(3000, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Node 0 keeps no in-edges: a destination that draws nothing.
	src, dst := g.Edges()
	var s2, d2 []int
	for i := range src {
		if dst[i] != 0 {
			s2, d2 = append(s2, src[i]), append(d2, dst[i])
		}
	}
	g, err = graph.FromEdges(3000, s2, d2)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSampleBlocksInvariants(t *testing.T) {
	g := testGraph(t)
	seeds := []int{0, 5, 17, 2999, 1000, 42}
	for _, fanouts := range [][]int{{15, 10, 5}, {-1, 3}, {0, 2}} {
		blocks, err := data.SampleBlocks(g, seeds, fanouts, 9)
		if err != nil {
			t.Fatal(err)
		}
		checkBlocks(t, g, seeds, fanouts, blocks)
		again, _ := data.SampleBlocks(g, seeds, fanouts, 9)
		for i := range blocks {
			if !slices.Equal(blocks[i].Graph.Indices, again[i].Graph.Indices) || !slices.Equal(blocks[i].SrcNodes, again[i].SrcNodes) {
				t.Fatalf("fan-outs %v: the same seed gave other blocks", fanouts)
			}
		}
	}
	if _, err := data.SampleBlocks(g, []int{3, 3}, []int{2}, 1); !errors.Is(err, data.ErrLoader) {
		t.Errorf("repeated seed: err = %v, want ErrLoader", err)
	}
	if _, err := data.SampleBlocks(g, []int{3000}, []int{2}, 1); !errors.Is(err, data.ErrLoader) {
		t.Errorf("seed out of range: err = %v, want ErrLoader", err)
	}
}

// TestSampleBlocksUniform draws 200,000 times from one row of degree d
// and checks the counts with Pearson's chi-squared statistic: with d−1
// degrees of freedom its mean is d−1 and its standard deviation
// √(2(d−1)); a correct sampler exceeds the mean by 8 standard deviations
// with probability below 1e-9 (the chi-squared tail, far lighter than
// Chebyshev's 1/64), and a sampler that skips one neighbour or favours one
// by 5% fails it.
func TestSampleBlocksUniform(t *testing.T) {
	g := testGraph(t)
	v := 0
	for u := range g.NumNodes() {
		if len(g.Neighbors(u)) > len(g.Neighbors(v)) {
			v = u
		}
	}
	d := len(g.Neighbors(v))
	const draws = 200000
	counts := make([]float64, d)
	blocks, err := data.SampleBlocks(g, []int{v}, []int{draws}, 11)
	if err != nil {
		t.Fatal(err)
	}
	b := blocks[0]
	pos := map[int]int{}
	for k, u := range g.Neighbors(v) {
		pos[u] = k
	}
	for _, u := range b.Graph.Neighbors(0) {
		counts[pos[b.SrcNodes[u]]]++
	}
	exp := float64(draws) / float64(d)
	chi := 0.0
	for _, c := range counts {
		chi += (c - exp) * (c - exp) / exp
	}
	df := float64(d - 1)
	if bound := df + 8*math.Sqrt(2*df); chi > bound {
		t.Errorf("degree %d, %d draws: chi-squared %.1f over the bound %.1f", d, draws, chi, bound)
	}
	t.Logf("degree %d, %d draws: chi-squared %.1f (mean %.0f)", d, draws, chi, df)
}

// TestNeighborLoaderDevice runs the loader's device paths on the Fake (the
// host model of gnnlib/cuda's): with SampleOnDevice the batches are
// SampleBlocks' blocks and their rows of x, on the device; with the host
// sampler they are the host loader's blocks with X gathered on the device;
// a GraphSAGE step on either gives the loss of the same step on the host.
func TestNeighborLoaderDevice(t *testing.T) {
	g := testGraph(t)
	n := g.NumNodes()
	x := tensor.Randn(3, n, 8)
	y := make([]int, n)
	seeds := make([]int, 300)
	for i := range y {
		y[i] = i % 3
	}
	for i := range seeds {
		seeds[i] = 7 * i
	}
	fake := &devicetest.Fake{}
	for _, onDev := range []bool{false, true} {
		o := data.NeighborLoaderOptions{BatchSize: 64, Fanouts: []int{5, 3}, Shuffle: true, Seed: 4, Workers: 2}
		hostLoader, err := data.NewNeighborLoader(g, x, y, seeds, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Device, o.SampleOnDevice = fake, onDev
		devLoader, err := data.NewNeighborLoader(g, x, y, seeds, o)
		if err != nil {
			t.Fatal(err)
		}
		hi, di := hostLoader.Iter(), devLoader.Iter()
		batches := 0
		for di.Next() {
			if !hi.Next() {
				t.Fatal("the device loader gave more batches")
			}
			hb, db := hi.Batch(), di.Batch()
			if !db.X.IsOnDevice() {
				t.Fatal("device batch X on the host")
			}
			if onDev {
				checkBlocks(t, g, db.Seeds, o.Fanouts, db.Blocks)
			} else if !slices.Equal(hb.Blocks[0].SrcNodes, db.Blocks[0].SrcNodes) {
				t.Fatal("host-sampled blocks differ between the host and device loaders")
			}
			want := x.IndexSelect(db.Blocks[0].SrcNodes).Data()
			if !slices.Equal(db.X.To(nil).Data(), want) {
				t.Fatal("gathered features differ from the host's rows")
			}
			// One SAGE forward on both sides over the device batch's blocks.
			c := nn.NewSAGEConv(8, 4, "mean")
			c2 := nn.NewSAGEConv(8, 4, "mean")
			for i, p := range c2.Params() {
				copy(p.Data(), c.Params()[i].Data())
			}
			nn.To(c2, fake)
			gs := db.Graphs()
			h := c.Forward(gs[0], x.IndexSelect(db.Blocks[0].SrcNodes))
			hd := c2.Forward(gs[0], db.X).To(nil)
			for i, v := range h.Data() {
				if math.Abs(float64(v-hd.Data()[i])) > 1e-5 {
					t.Fatalf("SAGE on the device batch: %v, host %v at %d", hd.Data()[i], v, i)
				}
			}
			batches++
		}
		hi.Close()
		di.Close()
		if err := di.Err(); err != nil {
			t.Fatal(err)
		}
		if batches != devLoader.Len() {
			t.Fatalf("%d batches, want %d", batches, devLoader.Len())
		}
	}
	o := data.NeighborLoaderOptions{BatchSize: 4, Fanouts: []int{2}, SampleOnDevice: true}
	if _, err := data.NewNeighborLoader(g, x, y, seeds, o); !errors.Is(err, data.ErrLoader) {
		t.Errorf("SampleOnDevice without Device: err = %v", err)
	}
}
