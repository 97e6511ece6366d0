package graph

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/gnnlab/gnnlab/gnnlib/graph/internal/f32"
)

// ErrNode is wrapped by errors about a node id out of range or repeated.
var ErrNode = errors.New("graph: bad node id")

// Block is one layer of a sampled computation graph (a DGL "block", a PyG
// NeighborLoader hop): a rectangular Graph whose destinations are DstNodes
// and whose sources are SrcNodes, both given as ids of the original graph.
// SrcNodes starts with DstNodes in the same order, so a layer's output rows
// for the destinations are the first rows of the next layer's input.
type Block struct {
	Graph    *Graph
	SrcNodes []int
	DstNodes []int
}

// SampleNeighbors samples a GraphSAGE-style computation graph around the
// seed nodes: fanouts[0] in-neighbours of each seed (without replacement;
// all of them if it has fewer, or if the fanout is negative), then
// fanouts[1] in-neighbours of each node reached, and so on. It returns one
// Block per hop in the order a model applies them: blocks[0] is the first
// layer (the last hop) and its SrcNodes are the rows of x to gather;
// blocks[len-1] ends at the seeds. The same seed gives the same sample.
func (g *Graph) SampleNeighbors(seeds []int, fanouts []int, seed uint64) ([]Block, error) {
	g.mustSquare("SampleNeighbors")
	n := g.NumNodes()
	// local maps a node id to its position in the current hop's sources
	// (−1: not reached); it is pooled and reset entry by entry, so a call
	// costs time in the nodes it reaches, not in n.
	lp := g.localIDs()
	local := *lp
	defer func() { g.sampleScratch.Put(lp) }()
	reset := func(nodes []int) {
		for _, v := range nodes {
			local[v] = -1
		}
	}
	for i, s := range seeds {
		if s < 0 || s >= n {
			reset(seeds[:i])
			return nil, fmt.Errorf("graph: seed %d is node %d of %d: %w", i, s, n, ErrNode)
		}
		if local[s] >= 0 {
			reset(seeds[:i])
			return nil, fmt.Errorf("graph: seed node %d repeated: %w", s, ErrNode)
		}
		local[s] = int32(i)
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	blocks := make([]Block, len(fanouts))
	dst := append([]int(nil), seeds...)
	var scratch []int
	for hop, fan := range fanouts {
		// local already maps dst (the seeds, or the last hop's sources) to
		// their positions, which start this hop's sources.
		srcNodes := append(make([]int, 0, 2*len(dst)), dst...)
		edges := 0
		for _, v := range dst {
			d := g.Indptr[v+1] - g.Indptr[v]
			if fan >= 0 && fan < d {
				d = fan
			}
			edges += d
		}
		indptr := make([]int, len(dst)+1)
		es := make([]int, 0, edges)
		for i, v := range dst {
			nb := g.Neighbors(v)
			pick := nb
			if fan >= 0 && fan < len(nb) {
				// A partial Fisher–Yates shuffle draws fan distinct edges.
				scratch = append(scratch[:0], nb...)
				for j := 0; j < fan; j++ {
					r := j + rng.IntN(len(scratch)-j)
					scratch[j], scratch[r] = scratch[r], scratch[j]
				}
				pick = scratch[:fan]
			}
			row := len(es)
			for _, u := range pick {
				id := local[u]
				if id < 0 {
					id = int32(len(srcNodes))
					local[u] = id
					srcNodes = append(srcNodes, u)
				}
				es = append(es, int(id))
			}
			// Rows are sorted by (block-local) source, as a Graph's are.
			slices.Sort(es[row:])
			indptr[i+1] = len(es)
		}
		blocks[len(fanouts)-1-hop] = Block{Graph: &Graph{Indptr: indptr, Indices: es, numSrc: len(srcNodes)}, SrcNodes: srcNodes, DstNodes: dst}
		dst = srcNodes
	}
	reset(dst)
	return blocks, nil
}

// localIDs returns a pooled slice of NumNodes entries, all −1.
func (g *Graph) localIDs() *[]int32 {
	if p, ok := g.sampleScratch.Get().(*[]int32); ok {
		return p
	}
	s := make([]int32, g.NumNodes())
	for i := range s {
		s[i] = -1
	}
	return &s
}

// Subgraph returns the subgraph induced by nodes, node i of it being
// nodes[i], and for each of its edges the id of that edge in g.
func (g *Graph) Subgraph(nodes []int) (*Graph, []int, error) {
	g.mustSquare("Subgraph")
	n := g.NumNodes()
	local := make([]int, n)
	for i := range local {
		local[i] = -1
	}
	for i, v := range nodes {
		if v < 0 || v >= n {
			return nil, nil, fmt.Errorf("graph: subgraph node %d is %d of %d: %w", i, v, n, ErrNode)
		}
		if local[v] >= 0 {
			return nil, nil, fmt.Errorf("graph: subgraph node %d repeated: %w", v, ErrNode)
		}
		local[v] = i
	}
	var src, dst, eid []int
	var w []float32
	for i, v := range nodes {
		for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
			if lu := local[g.Indices[e]]; lu >= 0 {
				src = append(src, lu)
				dst = append(dst, i)
				eid = append(eid, e)
				if g.Weights != nil {
					w = append(w, g.Weights[e])
				}
			}
		}
	}
	sub, err := build(len(nodes), len(nodes), src, dst, w)
	if err != nil {
		return nil, nil, err
	}
	// build sorts each row stably by source; reorder eid the same way.
	ids := make([]int, len(eid))
	order := countingOrder(src, len(nodes), nil)
	next := append([]int(nil), sub.Indptr[:len(nodes)]...)
	for _, k := range order {
		p := next[dst[k]]
		next[dst[k]]++
		ids[p] = eid[k]
	}
	return sub, ids, nil
}

// KHopSubgraph returns the subgraph of the nodes from which a seed can be
// reached in at most k edges (PyG's k_hop_subgraph with its default flow,
// source to target): nodes lists them in increasing id, sub is the induced
// subgraph relabelled by position in nodes, and mapping[i] is the position
// of seeds[i] in nodes.
func (g *Graph) KHopSubgraph(seeds []int, k int) (sub *Graph, nodes, mapping []int, err error) {
	g.mustSquare("KHopSubgraph")
	n := g.NumNodes()
	in := make([]bool, n)
	frontier := make([]int, 0, len(seeds))
	for i, s := range seeds {
		if s < 0 || s >= n {
			return nil, nil, nil, fmt.Errorf("graph: seed %d is node %d of %d: %w", i, s, n, ErrNode)
		}
		if !in[s] {
			in[s] = true
			frontier = append(frontier, s)
		}
	}
	for hop := 0; hop < k && len(frontier) > 0; hop++ {
		var next []int
		for _, v := range frontier {
			for _, u := range g.Neighbors(v) {
				if !in[u] {
					in[u] = true
					next = append(next, u)
				}
			}
		}
		frontier = next
	}
	pos := make([]int, n)
	for v := 0; v < n; v++ {
		if in[v] {
			pos[v] = len(nodes)
			nodes = append(nodes, v)
		}
	}
	mapping = make([]int, len(seeds))
	for i, s := range seeds {
		mapping[i] = pos[s]
	}
	sub, _, err = g.Subgraph(nodes)
	return sub, nodes, mapping, err
}

// Batch joins square graphs into one block-diagonal graph, as PyG's Batch
// does for graph classification: graph i's nodes follow those of graph i−1,
// and batch[v] is the index of the graph that node v came from. If any graph
// is weighted, the unweighted ones get weight 1.
func Batch(gs []*Graph) (*Graph, []int) {
	n, e, weighted := 0, 0, false
	for _, g := range gs {
		g.mustSquare("Batch")
		n += g.NumNodes()
		e += g.NumEdges()
		weighted = weighted || g.Weights != nil
	}
	indptr := make([]int, 1, n+1)
	indices := make([]int, 0, e)
	batch := make([]int, 0, n)
	var w []float32
	if weighted {
		w = make([]float32, 0, e)
	}
	off := 0
	for i, g := range gs {
		for v := 0; v < g.NumNodes(); v++ {
			indptr = append(indptr, len(indices)+g.Indptr[v+1]-g.Indptr[0])
			batch = append(batch, i)
		}
		for _, u := range g.Indices {
			indices = append(indices, u+off)
		}
		if weighted {
			if g.Weights != nil {
				w = append(w, g.Weights...)
			} else {
				for range g.Indices {
					w = append(w, 1)
				}
			}
		}
		off += g.NumNodes()
	}
	return &Graph{Indptr: indptr, Indices: indices, Weights: w, numSrc: n}, batch
}

// GlobalAddPool sums the node rows of x (f columns) per graph: dst[b,:] =
// Σ_{batch[v]=b} x[v,:], with dst numGraphs×f.
func GlobalAddPool(dst, x []float32, f int, batch []int, numGraphs int) {
	pool("GlobalAddPool", dst, x, f, batch, numGraphs)
}

// GlobalMeanPool averages the node rows of x per graph (0 for a graph with
// no nodes).
func GlobalMeanPool(dst, x []float32, f int, batch []int, numGraphs int) {
	count := pool("GlobalMeanPool", dst, x, f, batch, numGraphs)
	for b, c := range count {
		if c > 1 {
			inv := 1 / float32(c)
			for j := range dst[b*f : b*f+f] {
				dst[b*f+j] *= inv
			}
		}
	}
}

func pool(op string, dst, x []float32, f int, batch []int, numGraphs int) []int {
	checkLen(op, "dst", len(dst), numGraphs*f)
	checkLen(op, "x", len(x), len(batch)*f)
	clear(dst)
	count := make([]int, numGraphs)
	for v, b := range batch {
		f32.Axpy(dst[b*f:b*f+f], x[v*f:v*f+f], 1)
		count[b]++
	}
	return count
}

// GlobalMaxPool takes the largest entry of each column per graph and
// records its node in arg (numGraphs×f, may be nil; −1 for a graph with no
// nodes, whose row is 0). ScatterArg of gnnlib/graph/kernels is its
// backward pass.
func GlobalMaxPool(dst, x []float32, f int, batch []int, numGraphs int, arg []int) {
	checkLen("GlobalMaxPool", "dst", len(dst), numGraphs*f)
	checkLen("GlobalMaxPool", "x", len(x), len(batch)*f)
	if arg == nil {
		arg = make([]int, numGraphs*f)
	}
	checkLen("GlobalMaxPool", "arg", len(arg), numGraphs*f)
	clear(dst)
	for i := range arg {
		arg[i] = -1
	}
	for v, b := range batch {
		for j, val := range x[v*f : v*f+f] {
			if k := b*f + j; arg[k] < 0 || val > dst[k] {
				dst[k] = val
				arg[k] = v
			}
		}
	}
}
