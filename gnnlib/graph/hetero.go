package graph

import (
	"fmt"
	"slices"
	"sync"
)

// EdgeType names a relation of a HeteroGraph as PyG does: edges of
// relation Rel go from nodes of type Src to nodes of type Dst, as
// ("author", "writes", "paper").
type EdgeType struct {
	Src, Rel, Dst string
}

func (e EdgeType) String() string { return fmt.Sprintf("(%s, %s, %s)", e.Src, e.Rel, e.Dst) }

// HeteroGraph is a graph with several node and edge types (PyG's
// HeteroData): each node type has a count and optional features, each
// relation a CSR by destination over its two node sets. Node ids are
// counted from 0 within each type. Build it with AddNodes, then AddEdges;
// like a Graph, it is not to be changed once layers use it.
type HeteroGraph struct {
	nodeTypes []string
	count     map[string]int
	feat      map[string][]float32
	width     map[string]int
	edgeTypes []EdgeType
	rel       map[EdgeType]*Graph

	mu    sync.Mutex
	stack map[EdgeType]*Graph
}

// NewHeteroGraph returns an empty heterogeneous graph.
func NewHeteroGraph() *HeteroGraph {
	return &HeteroGraph{count: map[string]int{}, feat: map[string][]float32{}, width: map[string]int{}, rel: map[EdgeType]*Graph{}, stack: map[EdgeType]*Graph{}}
}

// AddNodes adds the node type name with n nodes and row-major features x
// of f columns (x nil and f 0 for none). A repeated type or features of
// the wrong length give an error.
func (h *HeteroGraph) AddNodes(name string, n int, x []float32, f int) error {
	switch {
	case name == "":
		return fmt.Errorf("graph: AddNodes: empty node type name: %w", ErrParam)
	case slices.Contains(h.nodeTypes, name):
		return fmt.Errorf("graph: AddNodes: node type %q added twice: %w", name, ErrParam)
	case n < 0 || f < 0:
		return fmt.Errorf("graph: AddNodes(%q): %d nodes, %d features: %w", name, n, f, ErrParam)
	case len(x) != n*f:
		return fmt.Errorf("graph: AddNodes(%q): %d feature values for %d nodes × %d: %w", name, len(x), n, f, ErrShape)
	}
	h.nodeTypes = append(h.nodeTypes, name)
	h.count[name], h.feat[name], h.width[name] = n, x, f
	return nil
}

// AddEdges adds relation et with edges src[i] → dst[i] (ids within et.Src
// and et.Dst). Both node types must exist; a relation added twice, or an
// endpoint out of range (ErrBadEdge), gives an error.
func (h *HeteroGraph) AddEdges(et EdgeType, src, dst []int) error {
	if !slices.Contains(h.nodeTypes, et.Src) || !slices.Contains(h.nodeTypes, et.Dst) {
		return fmt.Errorf("graph: AddEdges%v: unknown node type (have %v): %w", et, h.nodeTypes, ErrParam)
	}
	if _, dup := h.rel[et]; dup {
		return fmt.Errorf("graph: AddEdges%v: relation added twice: %w", et, ErrParam)
	}
	g, err := build(h.count[et.Src], h.count[et.Dst], src, dst, nil)
	if err != nil {
		return fmt.Errorf("graph: AddEdges%v: %w", et, err)
	}
	h.edgeTypes = append(h.edgeTypes, et)
	h.rel[et] = g
	return nil
}

// NodeTypes returns the node types in the order they were added.
func (h *HeteroGraph) NodeTypes() []string { return slices.Clone(h.nodeTypes) }

// EdgeTypes returns the relations in the order they were added.
func (h *HeteroGraph) EdgeTypes() []EdgeType { return slices.Clone(h.edgeTypes) }

// NumNodes returns the number of nodes of a type (0 for an unknown one).
func (h *HeteroGraph) NumNodes(nodeType string) int { return h.count[nodeType] }

// Features returns a node type's features and their width; the caller
// must not modify them.
func (h *HeteroGraph) Features(nodeType string) ([]float32, int) {
	return h.feat[nodeType], h.width[nodeType]
}

// Relation returns the graph of relation et, rectangular with
// NumSrc() = NumNodes(et.Src) and NumNodes() = NumNodes(et.Dst), or nil
// for a relation the graph does not have.
func (h *HeteroGraph) Relation(et EdgeType) *Graph { return h.rel[et] }

// Stacked returns relation et in the layout of a sampled Block, for
// layers that read the destinations' rows first: a rectangular graph over
// NumNodes(et.Dst)+NumNodes(et.Src) sources, the destinations first, with
// each edge u → v stored as NumNodes(et.Dst)+u → v. A relation within one
// node type is returned square, as Relation. It is cached per relation.
func (h *HeteroGraph) Stacked(et EdgeType) *Graph {
	g := h.rel[et]
	if g == nil || et.Src == et.Dst {
		return g
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.stack[et]; ok {
		return s
	}
	nd := g.NumNodes()
	idx := make([]int, len(g.Indices))
	for e, u := range g.Indices {
		idx[e] = u + nd
	}
	s := &Graph{Indptr: g.Indptr, Indices: idx, numSrc: nd + g.numSrc}
	h.stack[et] = s
	return s
}

func (h *HeteroGraph) String() string {
	s := "HeteroGraph(nodes={"
	for i, t := range h.nodeTypes {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s: %d", t, h.count[t])
	}
	s += "}, edges={"
	for i, et := range h.edgeTypes {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%v: %d", et, h.rel[et].NumEdges())
	}
	return s + "})"
}

// TypedSBMOptions configure TypedSBM.
type TypedSBMOptions struct {
	// NodeTypes and Sizes give each node type and its number of nodes.
	NodeTypes []string
	Sizes     []int
	// Classes is the number of planted classes, shared by all node types:
	// node v of a type of n nodes is in class v·Classes/n.
	Classes int
	// Relations lists the edge types to draw; each needs known node types.
	Relations []EdgeType
	// PIn is the probability of an edge of a relation between two nodes
	// of the same class, POut between different classes.
	PIn, POut float64
	// Features is the width of every type's features (0: none); Signal
	// scales the class means against unit noise, as in SBMOptions.
	Features int
	Signal   float64
	// Seed fixes the graph and the features.
	Seed uint64
}

// TypedSBM samples a heterogeneous stochastic block model: every node of
// every type has a planted class, and each relation draws its edges
// independently, with probability PIn within a class and POut across
// classes. Each type's features are its class means (one random mean per
// type and class, scaled by Signal) plus standard normal noise. It
// returns the graph and each type's classes.
func TypedSBM(o TypedSBMOptions) (*HeteroGraph, map[string][]int, error) {
	if len(o.NodeTypes) != len(o.Sizes) || len(o.NodeTypes) == 0 || o.Classes < 1 ||
		o.PIn < 0 || o.PIn > 1 || o.POut < 0 || o.POut > 1 || o.Features < 0 {
		return nil, nil, fmt.Errorf("graph: TypedSBM(%+v): %w", o, ErrParam)
	}
	rng := newRand(o.Seed)
	h := NewHeteroGraph()
	labels := map[string][]int{}
	start := map[string][]int{} // first node of each class, per type
	f := o.Features
	for i, t := range o.NodeTypes {
		n := o.Sizes[i]
		if n < o.Classes {
			return nil, nil, fmt.Errorf("graph: TypedSBM: node type %q has %d nodes for %d classes: %w", t, n, o.Classes, ErrParam)
		}
		y := make([]int, n)
		st := make([]int, o.Classes+1)
		for v := range y {
			y[v] = v * o.Classes / n
			st[y[v]+1] = v + 1
		}
		means := make([]float64, o.Classes*f)
		for j := range means {
			means[j] = o.Signal * rng.NormFloat64()
		}
		x := make([]float32, n*f)
		for v := 0; v < n; v++ {
			for j := 0; j < f; j++ {
				x[v*f+j] = float32(means[y[v]*f+j] + rng.NormFloat64())
			}
		}
		if err := h.AddNodes(t, n, x, f); err != nil {
			return nil, nil, err
		}
		labels[t], start[t] = y, st
	}
	for _, et := range o.Relations {
		ss, sd := start[et.Src], start[et.Dst]
		if ss == nil || sd == nil {
			return nil, nil, fmt.Errorf("graph: TypedSBM: relation %v names an unknown node type: %w", et, ErrParam)
		}
		var src, dst []int
		for c1 := 0; c1 < o.Classes; c1++ {
			for c2 := 0; c2 < o.Classes; c2++ {
				p := o.POut
				if c1 == c2 {
					p = o.PIn
				}
				a, b := ss[c1+1]-ss[c1], sd[c2+1]-sd[c2]
				skipSample(int64(a)*int64(b), p, rng, func(k int64) {
					u, v := ss[c1]+int(k/int64(b)), sd[c2]+int(k%int64(b))
					if et.Src != et.Dst || u != v {
						src, dst = append(src, u), append(dst, v)
					}
				})
			}
		}
		if err := h.AddEdges(et, src, dst); err != nil {
			return nil, nil, err
		}
	}
	return h, labels, nil
}
