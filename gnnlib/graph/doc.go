// Package graph holds sparse graphs: their structure, transforms,
// sampling, batching and generators. The kernels that graph neural
// networks are made of (SpMM, SDDMM, edge softmax, aggregations) on plain
// float32 slices live in gnnlib/graph/kernels; gnnlib/nn wraps them into
// autograd operations.
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
// graphs and leave their input as it was; a Graph must not be modified
// after construction, which lets it cache its transpose (Transpose, for
// backward passes) and its GCN normalisation (GCNNorm).
//
// # Sampling, reordering, batching
//
// SampleNeighbors draws GraphSAGE mini-batch blocks (gnnlib/data's
// NeighborLoader batches them on background goroutines); AddSelfLoops and
// GCNNorm also work on a block's rectangular Graph; KHopSubgraph and
// Subgraph cut out induced subgraphs; RCM and DegreeOrder compute node
// orders for Permute, whose effect EdgeSpan and Bandwidth measure; Batch
// joins small graphs block-diagonally for graph classification, with
// GlobalAddPool, GlobalMeanPool and GlobalMaxPool to read them out.
//
// # Link prediction and spectral operators
//
// RandomLinkSplit splits a graph's undirected pairs into training,
// validation and test links, the validation and test sets each with as
// many negative pairs (PyG's RandomLinkSplit with is_undirected and
// split_labels), from a seed; NegativeSampling draws pairs that are not
// edges (fresh training negatives each epoch); EdgeList holds either.
// ScaledLaplacian returns 2L/λmax − I of the normalised Laplacian, the
// operator of Chebyshev convolutions.
//
// # Heterogeneous graphs
//
// A HeteroGraph (PyG's HeteroData) holds several node types, each with a
// count and optional features, and one rectangular Graph per relation
// (an EdgeType: source type, relation, destination type), each in CSR by
// destination. Stacked returns a relation in the layout of a sampled
// Block (the destinations' rows first), which lets the homogeneous layers of
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
// BUG(gnnlab): The global pooling functions run on one goroutine.
package graph
