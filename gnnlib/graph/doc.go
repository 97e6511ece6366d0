// Package graph holds sparse graphs and the kernels that graph neural
// networks are made of, on plain float32 slices.
//
// # Graphs
//
// A Graph stores its edges in compressed sparse rows by destination: row v
// lists the sources u of the edges u→v, so messages flow from Indices to
// rows, and a kernel writing node v reads the rows of its in-neighbours. It
// is built from an edge list in PyG's order (FromEdges: src, dst = PyG's
// edge_index[0], edge_index[1]) and checked: a bad endpoint gives an error
// wrapping ErrBadEdge that names the edge. Transforms (ToUndirected,
// Coalesce, AddSelfLoops, RemoveSelfLoops, Permute, Subgraph) return new
// graphs; a Graph is never modified, which lets it cache its transpose
// (Transpose, for backward passes) and its GCN normalisation (GCNNorm).
//
// # Kernels
//
// Kernels take row-major matrices as []float32 with their column count,
// destination first as in gonum: g.SpMM(dst, x, f, w) computes
// dst[v,:] = Σ_{u→v} w[e]·x[u,:]. Per-edge arrays are indexed by edge id,
// the position of the edge in Indices. SpMM and its transpose SpMMT, mean,
// max and min aggregation, SDDMM, the per-destination EdgeSoftmax and the
// multi-head AttentionAggregate are what GCN, GraphSAGE and GAT layers need
// (gnnlib/nn wraps them into autograd operations); no kernel materialises a
// per-edge feature matrix. They run over row blocks on tensor.Threads() goroutines,
// the blocks cut by edge count so that hubs do not leave cores idle. A slice
// of the wrong length is a programmer error and panics with an error
// wrapping ErrShape.
//
// # Sampling, reordering, batching
//
// SampleNeighbors draws GraphSAGE mini-batch blocks (gnnlib/data's
// NeighborLoader batches them on background goroutines); AddSelfLoops and
// GCNNorm also take a block; KHopSubgraph and
// Subgraph cut out induced subgraphs; RCM and DegreeOrder compute node
// orders for Permute, whose effect EdgeSpan and Bandwidth measure; Batch
// joins small graphs block-diagonally for graph classification, with
// GlobalAddPool, GlobalMeanPool and GlobalMaxPool to read them out.
//
// # Link prediction and spectral operators
//
// RandomLinkSplit splits a graph's undirected pairs into training,
// validation and test links with as many negative pairs (PyG's
// RandomLinkSplit with is_undirected and split_labels), from a seed;
// NegativeSampling draws pairs that are not edges; EdgeList holds either.
// ScaledLaplacian returns 2L/λmax − I of the normalised Laplacian, the
// operator of Chebyshev convolutions.
//
// # Heterogeneous graphs
//
// A HeteroGraph (PyG's HeteroData) holds several node types, each with a
// count and optional features, and one rectangular Graph per relation
// (an EdgeType: source type, relation, destination type), each in CSR by
// destination. Stacked lays a relation out as a sampled Block (the
// destinations' rows first), which lets the homogeneous layers of
// gnnlib/nn run on it. TypedSBM generates one with planted classes.
//
// # Generators and measures
//
// SBM (with class-correlated features), TypedSBM (heterogeneous),
// BarabasiAlbert, ErdosRenyi, ErdosRenyiM and RMAT generate graphs from a
// seed; BAShapes builds the GNNExplainer paper's benchmark (a
// Barabási–Albert graph with house motifs, labels by role and the motif
// edges as ground truth). DirichletEnergy and
// MeanAverageDistance measure over-smoothing of node features.
//
// BUG(gnnlab): Kernels are plain Go loops, unrolled by hand but not
// vectorised; the sparse feature matrix product X·W lives in gnnlib/tensor.
//
// BUG(gnnlab): ScatterArg and the global pooling functions run on one
// goroutine.
package graph
