package data

import (
	"fmt"
	"slices"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// BlockSampler is the capability of a device backend (gnnlib/cuda's) that
// NeighborLoader uses when its Device option is set: sampling and block
// building on the device, and features gathered there from a resident
// feature matrix. Both methods are called on the loader's goroutines and
// record no autograd op.
type BlockSampler interface {
	// SampleBlocks samples as SampleBlocks (this package's function) does,
	// on the device, with the same blocks for the same seed; the blocks'
	// graphs are on the device already (each with its transpose and mean
	// weights), and their host copies are filled in too. x, when not nil, is
	// a feature matrix on the device: the rows of blocks[0].SrcNodes are
	// gathered from it into the returned storage.
	SampleBlocks(g *graph.Graph, x *tensor.Tensor, seeds, fanouts []int, seed uint64) ([]graph.Block, tensor.Storage, error)
	// UploadBlocks puts blocks sampled on the host onto the device (CSR
	// uploaded, transpose and mean weights built there) and, when x is not
	// nil, gathers the rows of blocks[0].SrcNodes of x (on the device).
	UploadBlocks(blocks []graph.Block, x *tensor.Tensor) (tensor.Storage, error)
}

// SampleBlocks samples a GraphSAGE-style computation graph around the
// seeds as graph.SampleNeighbors does, but uniformly with replacement (as
// the plain-torch GPU sampler beside which gnnbench times it, and as the
// device sampler of gnnlib/cuda, which gives the same blocks for the same
// seed): a destination with in-neighbours draws fanouts[hop] of them (a
// node may be drawn more than once, giving parallel edges), one without
// draws none, and a negative fan-out takes every in-neighbour once. Draw
// j of the hop's destination i takes neighbour ⌊h·d/2³²⌋ of its d, h the
// high 32 bits of a counter-based hash of (seed, hop, i·fanout+j), so each
// draw is independent of the others and of the order they are made in
// (the bias of the multiply-shift is below d/2³²). A hop's sources are its
// destinations, in order, then the nodes new to it in increasing id. The
// blocks' rows are sorted by source, as a graph.Graph's are.
func SampleBlocks(g *graph.Graph, seeds, fanouts []int, seed uint64) ([]graph.Block, error) {
	if !g.IsSquare() {
		return nil, fmt.Errorf("data: SampleBlocks: rectangular graph %v: %w", g, ErrLoader)
	}
	n := g.NumNodes()
	loc := make(map[int]int, len(seeds))
	for i, s := range seeds {
		if s < 0 || s >= n {
			return nil, fmt.Errorf("data: SampleBlocks: seed %d is node %d of %d: %w", i, s, n, ErrLoader)
		}
		if _, ok := loc[s]; ok {
			return nil, fmt.Errorf("data: SampleBlocks: seed node %d repeated: %w", s, ErrLoader)
		}
		loc[s] = i
	}
	blocks := make([]graph.Block, len(fanouts))
	dst := append([]int(nil), seeds...)
	for hop, fan := range fanouts {
		hs := HopSeed(seed, hop)
		var src, rows []int // per edge: global source, destination row
		isNew := map[int]bool{}
		for i, v := range dst {
			nb := g.Neighbors(v)
			d := len(nb)
			if d == 0 {
				continue
			}
			k := fan
			if fan < 0 {
				k = d
			}
			for j := 0; j < k; j++ {
				r := j
				if fan >= 0 {
					r = drawIndex(hs, uint64(i)*uint64(fan)+uint64(j), d)
				}
				u := nb[r]
				src = append(src, u)
				rows = append(rows, i)
				if _, ok := loc[u]; !ok {
					isNew[u] = true
				}
			}
		}
		fresh := make([]int, 0, len(isNew))
		for u := range isNew {
			fresh = append(fresh, u)
		}
		slices.Sort(fresh)
		nodes := append(make([]int, 0, len(dst)+len(fresh)), dst...)
		for _, u := range fresh {
			loc[u] = len(nodes)
			nodes = append(nodes, u)
		}
		for e, u := range src {
			src[e] = loc[u]
		}
		bg, err := graph.NewBipartite(len(nodes), len(dst), src, rows, nil)
		if err != nil {
			return nil, err
		}
		blocks[len(fanouts)-1-hop] = graph.Block{Graph: bg, SrcNodes: nodes, DstNodes: dst}
		dst = nodes
	}
	return blocks, nil
}

// HopSeed is the seed of hop's draws in SampleBlocks (and on the device).
func HopSeed(seed uint64, hop int) uint64 { return mix(seed, uint64(hop)) }

// drawIndex is draw i of a hop seeded hs among d neighbours:
// ⌊h·d/2³²⌋ with h the high 32 bits of mix(hs, i).
func drawIndex(hs, i uint64, d int) int { return int(((mix(hs, i) >> 32) * uint64(d)) >> 32) }
