package dist

import (
	"fmt"
	"slices"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Partition assigns every node of a graph to one of Parts parts, for
// full-batch training with the graph spread over several devices: each
// rank holds the features and computes the outputs of its part's nodes.
type Partition struct {
	// Parts is the number of parts.
	Parts int
	// Assign holds the part of each node.
	Assign []int
}

// RangePartition cuts nodes 0..n-1 into k contiguous ranges of nearly
// equal size (the first n%k one node longer), which keeps the edge cut low
// for graphs whose numbering follows their locality (after graph.RCM, for
// instance).
func RangePartition(n, k int) (*Partition, error) {
	if k < 1 || n < k {
		return nil, fmt.Errorf("dist: %d nodes into %d parts", n, k)
	}
	p := &Partition{Parts: k, Assign: make([]int, n)}
	for part := range k {
		lo, hi := chunk(n, k, part)
		for v := lo; v < hi; v++ {
			p.Assign[v] = part
		}
	}
	return p, nil
}

// BFSPartition grows k parts of nearly equal size (as RangePartition's)
// one after another by breadth-first search over the graph with its edges
// taken in both directions, each part starting from the lowest-numbered
// node not yet assigned and taking, among the frontier, first the nodes
// with the most edges into the part; it is a greedy edge-cut reducer
// (no multilevel refinement as METIS does). A part that runs out of
// reachable nodes continues from the next unassigned node.
func BFSPartition(g *graph.Graph, k int) (*Partition, error) {
	n := g.NumNodes()
	if !g.IsSquare() {
		return nil, fmt.Errorf("dist: BFSPartition of a rectangular graph %v", g)
	}
	if k < 1 || n < k {
		return nil, fmt.Errorf("dist: %d nodes into %d parts", n, k)
	}
	adj := undirected(g)
	p := &Partition{Parts: k, Assign: make([]int, n)}
	for i := range p.Assign {
		p.Assign[i] = -1
	}
	next := 0 // lowest node that may be unassigned
	// gain[v] counts v's edges into the part being grown; frontier holds
	// the nodes with a positive gain, picked by a bucket queue.
	gain := make([]int, n)
	for part := range k {
		lo, hi := chunk(n, k, part)
		size := hi - lo
		q := newBucketQueue()
		var touched []int
		for taken := 0; taken < size; taken++ {
			v, ok := q.pop(p.Assign)
			if !ok {
				for p.Assign[next] >= 0 {
					next++
				}
				v = next
			}
			p.Assign[v] = part
			for _, u := range adj.Neighbors(v) {
				if p.Assign[u] < 0 {
					if gain[u] == 0 {
						touched = append(touched, u)
					}
					gain[u]++
					q.push(u, gain[u])
				}
			}
		}
		for _, u := range touched {
			gain[u] = 0
		}
	}
	return p, nil
}

// undirected returns g's adjacency with every edge in both directions and
// no repeated edges or self-loops.
func undirected(g *graph.Graph) *graph.Graph {
	src, dst := g.Edges()
	s := make([]int, 0, 2*len(src))
	d := make([]int, 0, 2*len(src))
	for i := range src {
		if src[i] != dst[i] {
			s = append(s, src[i], dst[i])
			d = append(d, dst[i], src[i])
		}
	}
	u, err := graph.FromEdges(g.NumNodes(), s, d)
	if err != nil {
		panic(err) // the ids come from a valid graph
	}
	return u.Coalesce()
}

// bucketQueue pops a node of the highest gain pushed, skipping stale
// entries (nodes assigned since, or pushed again with a higher gain).
type bucketQueue struct {
	buckets [][]int
	gains   map[int]int
	top     int
}

func newBucketQueue() *bucketQueue { return &bucketQueue{gains: map[int]int{}} }

func (q *bucketQueue) push(v, gain int) {
	for len(q.buckets) <= gain {
		q.buckets = append(q.buckets, nil)
	}
	q.buckets[gain] = append(q.buckets[gain], v)
	q.gains[v] = gain
	q.top = max(q.top, gain)
}

func (q *bucketQueue) pop(assign []int) (int, bool) {
	for q.top > 0 {
		b := q.buckets[q.top]
		if len(b) == 0 {
			q.top--
			continue
		}
		v := b[0] // first pushed first: keeps the search breadth-first
		q.buckets[q.top] = b[1:]
		if assign[v] < 0 && q.gains[v] == q.top {
			delete(q.gains, v)
			return v, true
		}
	}
	return 0, false
}

// Nodes returns the nodes of part, in increasing order.
func (p *Partition) Nodes(part int) []int {
	var out []int
	for v, q := range p.Assign {
		if q == part {
			out = append(out, v)
		}
	}
	return out
}

// EdgeCut returns the number of edges of g between nodes of different
// parts.
func (p *Partition) EdgeCut(g *graph.Graph) int {
	cut := 0
	for v := range g.NumNodes() {
		for _, u := range g.Neighbors(v) {
			if p.Assign[u] != p.Assign[v] {
				cut++
			}
		}
	}
	return cut
}

// Shard is one part of a partitioned graph as its rank sees it: the nodes
// it owns, the halo (the in-neighbours of its nodes that other parts own,
// whose features it must receive before each layer) and the plan of the
// halo exchange.
type Shard struct {
	// Part is the shard's part and Parts their number.
	Part, Parts int
	// Owned holds the part's nodes (ids of the whole graph, increasing):
	// local row i is node Owned[i].
	Owned []int
	// Halo holds the other parts' nodes with an edge into Owned
	// (increasing ids): local row len(Owned)+j is node Halo[j].
	Halo []int
	// Graph holds the edges into the owned nodes as a rectangular graph
	// of len(Owned) destinations and len(Owned)+len(Halo) sources in local
	// rows, weights kept.
	Graph *graph.Graph
	// GCN is Graph's rows of the whole graph's GCN normalisation
	// (graph.Graph.GCNNorm, degrees of the whole graph), so that a GCN
	// layer over the shard computes the rows of the unpartitioned layer.
	GCN *graph.Graph
	// Send[q] lists the owned rows (local indices) that part q needs, and
	// Recv[q] the halo entries (indices into Halo) that part q sends, in
	// the order it sends them: the point-to-point plan of the exchange.
	Send, Recv [][]int

	// The exchange buffer holds, part after part, the boundary rows of
	// each part (owned rows some other part needs, increasing ids):
	// bufRows rows in all, this part's from row bufOff, which are owned
	// rows boundary; halo entry j is buffer row haloRow[j].
	bufRows, bufOff int
	boundary        []int
	haloRow         []int
}

// Shard returns the shard of part of g. Every rank computes its own shard
// from the whole graph's structure (not its features).
func (p *Partition) Shard(g *graph.Graph, part int) (*Shard, error) {
	n := g.NumNodes()
	if len(p.Assign) != n || !g.IsSquare() {
		return nil, fmt.Errorf("dist: a partition of %d nodes for graph %v", len(p.Assign), g)
	}
	if part < 0 || part >= p.Parts {
		return nil, fmt.Errorf("dist: part %d of %d", part, p.Parts)
	}
	// Boundary nodes are those some other part reads.
	isBoundary := make([]bool, n)
	s := &Shard{Part: part, Parts: p.Parts, Owned: p.Nodes(part), Send: make([][]int, p.Parts), Recv: make([][]int, p.Parts)}
	local := make(map[int]int, len(s.Owned))
	for i, v := range s.Owned {
		local[v] = i
	}
	haloSet := map[int]bool{}
	for v := range n {
		for _, u := range g.Neighbors(v) {
			pu, pv := p.Assign[u], p.Assign[v]
			if pu == pv {
				continue
			}
			isBoundary[u] = true
			if pv == part {
				haloSet[u] = true
			}
		}
	}
	for u := range haloSet {
		s.Halo = append(s.Halo, u)
	}
	slices.Sort(s.Halo)
	for j, u := range s.Halo {
		local[u] = len(s.Owned) + j
		s.Recv[p.Assign[u]] = append(s.Recv[p.Assign[u]], j)
	}
	// Send[q]: owned nodes with an edge into part q, increasing.
	sendSet := make([]map[int]bool, p.Parts)
	for v := range n {
		q := p.Assign[v]
		if q == part {
			continue
		}
		for _, u := range g.Neighbors(v) {
			if p.Assign[u] == part {
				if sendSet[q] == nil {
					sendSet[q] = map[int]bool{}
				}
				sendSet[q][u] = true
			}
		}
	}
	for q, set := range sendSet {
		for u := range set {
			s.Send[q] = append(s.Send[q], local[u])
		}
		slices.Sort(s.Send[q])
	}
	// The exchange buffer: each part's boundary nodes in increasing order.
	row := make(map[int]int)
	for q := range p.Parts {
		if q == part {
			s.bufOff = s.bufRows
		}
		for v := range n {
			if p.Assign[v] == q && isBoundary[v] {
				row[v] = s.bufRows
				s.bufRows++
				if q == part {
					s.boundary = append(s.boundary, local[v])
				}
			}
		}
	}
	s.haloRow = make([]int, len(s.Halo))
	for j, u := range s.Halo {
		s.haloRow[j] = row[u]
	}
	var err error
	if s.Graph, err = s.rows(g); err != nil {
		return nil, err
	}
	if s.GCN, err = s.rows(g.GCNNorm()); err != nil {
		return nil, err
	}
	return s, nil
}

// rows returns the rows of g for the owned nodes with sources in local
// ids. The halo of g.GCNNorm() is that of g: the normalisation adds only
// self-loops.
func (s *Shard) rows(g *graph.Graph) (*graph.Graph, error) {
	local := make(map[int]int, len(s.Owned)+len(s.Halo))
	for i, v := range s.Owned {
		local[v] = i
	}
	for j, u := range s.Halo {
		local[u] = len(s.Owned) + j
	}
	var src, dst []int
	var w []float32
	for i, v := range s.Owned {
		lo, hi := g.Indptr[v], g.Indptr[v+1]
		for e := lo; e < hi; e++ {
			src = append(src, local[g.Indices[e]])
			dst = append(dst, i)
			if g.Weights != nil {
				w = append(w, g.Weights[e])
			}
		}
	}
	return graph.NewBipartite(len(s.Owned)+len(s.Halo), len(s.Owned), src, dst, w)
}

// Exchange returns x, the features of the owned nodes (one row each),
// extended by the features of the halo nodes received from their owners:
// the input of a layer over Graph or GCN. Every rank of the partition
// must call it with features of the same width, as a collective call. The
// exchange is one all-reduce of the boundary rows of all parts (each rank
// fills its own, the others are zeros, so the sum is their concatenation
// exactly): every rank receives every boundary row, not only its halo's.
// The result is a new tensor on x's device (the rows go through host
// memory) that records no autograd link to x; HaloTape records one.
func (s *Shard) Exchange(c Communicator, x *tensor.Tensor) (*tensor.Tensor, error) {
	if err := s.check(c, x, len(s.Owned)); err != nil {
		return nil, err
	}
	dev := x.Device()
	x = x.CPU()
	f := x.Size(1)
	xd := x.Data()
	buf := make([]float32, s.bufRows*f)
	for j, r := range s.boundary {
		copy(buf[(s.bufOff+j)*f:(s.bufOff+j+1)*f], xd[r*f:(r+1)*f])
	}
	if err := c.AllReduce(buf, Sum); err != nil {
		return nil, fmt.Errorf("dist: halo exchange: %w", err)
	}
	out := make([]float32, (len(s.Owned)+len(s.Halo))*f)
	copy(out, xd)
	base := len(s.Owned) * f
	for j, r := range s.haloRow {
		copy(out[base+j*f:base+(j+1)*f], buf[r*f:(r+1)*f])
	}
	return onDevice(tensor.Wrap(out, len(s.Owned)+len(s.Halo), f), dev), nil
}

// onDevice moves a new host tensor to dev (nil: the CPU).
func onDevice(t *tensor.Tensor, dev tensor.Backend) *tensor.Tensor {
	if dev != nil {
		return t.To(dev)
	}
	return t
}

// ExchangeGrad is Exchange's reverse, for a backward pass: given the
// gradient of a layer's input over the shard (one row per owned and halo
// node), it sends the halo rows back to their owners and returns the
// gradient of the owned rows, each the sum of its own row and of the rows
// the other parts computed for it, on g's device. A collective call, as
// Exchange.
func (s *Shard) ExchangeGrad(c Communicator, g *tensor.Tensor) (*tensor.Tensor, error) {
	if err := s.check(c, g, len(s.Owned)+len(s.Halo)); err != nil {
		return nil, err
	}
	dev := g.Device()
	g = g.CPU()
	f := g.Size(1)
	gd := g.Data()
	buf := make([]float32, s.bufRows*f)
	base := len(s.Owned) * f
	for j, r := range s.haloRow {
		dst, src := buf[r*f:(r+1)*f], gd[base+j*f:base+(j+1)*f]
		for i := range dst {
			dst[i] += src[i]
		}
	}
	if err := c.AllReduce(buf, Sum); err != nil {
		return nil, fmt.Errorf("dist: halo gradient exchange: %w", err)
	}
	out := append([]float32(nil), gd[:base]...)
	for j, r := range s.boundary {
		dst, src := out[r*f:(r+1)*f], buf[(s.bufOff+j)*f:(s.bufOff+j+1)*f]
		for i := range dst {
			dst[i] += src[i]
		}
	}
	return onDevice(tensor.Wrap(out, len(s.Owned), f), dev), nil
}

func (s *Shard) check(c Communicator, x *tensor.Tensor, rows int) error {
	if c.Size() != s.Parts || c.Rank() != s.Part {
		return fmt.Errorf("dist: shard %d of %d exchanged by rank %d of %d", s.Part, s.Parts, c.Rank(), c.Size())
	}
	if x.Dims() != 2 || x.Size(0) != rows || x.IsSparse() {
		return &tensor.ShapeError{Op: "dist.Shard exchange", A: x.Shape(), B: []int{rows}, Msg: "needs one dense row per node"}
	}
	return nil
}

// HaloTape records the halo exchanges of a forward pass over a shard, so
// that Backward can run the backward pass across them: each exchange
// cuts the autograd graph (Exchange's result is a new leaf), and Backward
// runs the pass segment by segment from the loss back to the first
// exchange, sending each cut's halo gradient back to its owners
// (ExchangeGrad) in between. Every rank of the partition must make the
// same calls.
type HaloTape struct {
	s    *Shard
	c    Communicator
	cuts [][2]*tensor.Tensor // (input, its exchanged leaf)
}

// Tape returns an empty HaloTape over the shard and communicator.
func (s *Shard) Tape(c Communicator) *HaloTape { return &HaloTape{s: s, c: c} }

// Exchange is Shard.Exchange, recorded: when h takes part in the
// autograd graph, the result is a leaf requiring gradients whose gradient
// Backward carries back to h.
func (t *HaloTape) Exchange(h *tensor.Tensor) (*tensor.Tensor, error) {
	ext, err := t.s.Exchange(t.c, h)
	if err != nil {
		return nil, err
	}
	if h.RequiresGrad() {
		ext.SetRequiresGrad(true)
		t.cuts = append(t.cuts, [2]*tensor.Tensor{h, ext})
	}
	return ext, nil
}

// Backward runs loss.Backward and then, cut by cut from the last, sends
// the halo rows of the cut's gradient back to their owners and continues
// the backward pass from the cut's input with the owned rows' gradient.
// The tape is empty afterwards.
func (t *HaloTape) Backward(loss *tensor.Tensor) error {
	loss.Backward()
	for i := len(t.cuts) - 1; i >= 0; i-- {
		h, ext := t.cuts[i][0], t.cuts[i][1]
		g := ext.Grad()
		if g == nil { // the loss does not depend on this cut here, but may on another rank
			g = tensor.ZerosLike(ext)
		}
		dh, err := t.s.ExchangeGrad(t.c, g)
		if err != nil {
			return err
		}
		h.BackwardWith(dh)
	}
	t.cuts = nil
	return nil
}
