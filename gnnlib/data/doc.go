// Package data loads the datasets that gnnlab's notebooks train on: the
// Planetoid citation graphs (Cora, CiteSeer, PubMed), Zachary's karate
// club, the TU graph-classification datasets and the MNIST digits; and
// it cuts node-classification graphs into neighbour-sampled mini-batches.
//
// # Node classification
//
// Planetoid and KarateClub return a *Dataset, laid out as PyTorch
// Geometric's Data object:
//
//	ds, err := data.Planetoid("cora")
//	// ds.Graph (*graph.Graph), ds.X (*tensor.Tensor, sparse), ds.Y []int,
//	// ds.TrainIdx, ds.ValIdx, ds.TestIdx, ds.NumFeatures(), ds.NumClasses()
//
// Planetoid parses the original Python 2 pickles in Go (with
// github.com/nlpodyssey/gopickle) and reproduces PyG's processing and
// public split exactly; its documentation lists the steps.
//
// # Graph classification
//
// TUDataset(name) and LoadTU(dir, name) read the text format of the TU
// datasets (Morris et al.: <name>_A.txt, _graph_indicator.txt,
// _graph_labels.txt, optional _node_labels.txt and
// _node_attributes.txt) into a *GraphDataset, processed as PyG's
// TUDataset: self-loops and duplicate edges removed, graph labels
// renumbered from 0, node labels one-hot encoded after the attributes.
// ds.Batch(idx) joins graphs block-diagonally into a *GraphBatch (graph,
// stacked features, the batch vector, labels) for a GNN followed by
// nn.GlobalMeanPool, GlobalAddPool or GlobalMaxPool.
//
// # Neighbour-sampled mini-batches
//
// NewNeighborLoader(g, x, y, seeds, options) is PyG's NeighborLoader: an
// epoch (Iter) walks the seed nodes in batches of BatchSize, shuffled if
// asked, samples Fanouts in-neighbours per layer (graph.SampleNeighbors)
// and yields a *MiniBatch with the blocks (one bipartite graph per layer,
// first layer first), the features of the first block's sources and the
// seeds' labels:
//
//	loader, err := data.NewNeighborLoader(ds.Graph, ds.X, ds.Y, ds.TrainIdx,
//		data.NeighborLoaderOptions{BatchSize: 512, Fanouts: []int{25, 10}, Shuffle: true})
//	it := loader.Iter()
//	for it.Next() {
//		b := it.Batch()
//		loss := nn.CrossEntropy(model.ForwardBlocks(b.Graphs(), b.X), b.Y, nil)
//		...
//	}
//	it.Close()
//
// Batches are sampled ahead on Workers background goroutines while the
// caller trains on the current one, at most Prefetch batches ahead; Close
// stops them (and waits for them), so breaking out of an epoch leaks
// nothing. The batches depend only on Seed and the epoch's number, not on
// Workers. The sampler alone (BenchmarkNeighborSampler in gnnlib/nn, one
// goroutine, a 100k-node SBM of mean degree 10, batches of 1024 seeds)
// draws 104k seeds/s with fan-outs 25, 10 and 10k seeds/s with 15, 10, 5
// (whose third hop reaches almost every node). Its time hides behind
// training: in BenchmarkSampledEpoch (GraphSAGE, hidden 64, 2 threads, 8
// batches of 512 seeds, fan-outs 10, 5) the training loop waited 27–29 ms
// an epoch for the loader's batches, against 245–480 ms spent sampling
// when the same batches were drawn inline (2-core machine, shared and
// loaded, so the epoch times themselves varied twofold).
//
// On Cora, GraphSAGE trained on sampled batches (4 batches of 35
// training nodes, fan-outs 25 and 10, 50 epochs) reached 80.4% mean test
// accuracy over seeds 1–3 beside 80.8% for full-batch training; the tests
// check that it stays within one point.
//
// On a GPU, the Device option keeps the features on the device (moved
// once, at NewNeighborLoader) and gathers each batch's rows there, and
// the loader's goroutines put each batch's blocks on the device (their
// transposes built there) before it is handed out; SampleOnDevice samples
// on the device too, so that only the seeds go up. Both go through the
// BlockSampler capability of the device backend (gnnlib/cuda's, and
// gnnlib/devicetest's Fake, which runs SampleBlocks on the host):
//
//	dev, err := tensor.Device("cuda")
//	loader, err := data.NewNeighborLoader(ds.Graph, ds.X, ds.Y, ds.TrainIdx,
//		data.NeighborLoaderOptions{BatchSize: 1024, Fanouts: []int{15, 10, 5}, Shuffle: true,
//			Workers: 4, Device: dev, SampleOnDevice: true})
//	nn.To(model, dev)
//	it := loader.Iter()
//	for it.Next() {
//		b := it.Batch() // b.X on dev, b.Graphs() already on dev
//		loss := nn.CrossEntropy(model.ForwardBlocks(b.Graphs(), b.X), b.Y, nil)
//		...
//	}
//
// Each device-sampled batch still has host work (its blocks' host
// graphs), so on a large graph Workers sets how fast batches come: for a
// products-sized GraphSAGE batch on an H100 (16 host cores, 2026-12-07)
// the training step waited 1.0-1.3 ms a batch for the loader with 4
// workers and 0.01-0.64 ms with 8 (gnnlib/cuda's BENCHMARKS.md).
//
// With ReuseBlocks as well, the device sampler builds a batch's blocks
// in memory that the batch before gave back: a batch's Blocks are valid
// until the next call of Next (as bufio.Scanner's Bytes), so copy what
// must outlive it. On a products-sized graph, whose arrays make the heap
// large and Go's collector run seldom, fresh memory costs a page fault
// per 4 KiB, and a batch's host work took 3.0 ms instead of 32 ms on a
// 2-core machine (gnnlib/cuda's BenchmarkSampleBlocksHostProducts).
//
// SampleBlocks is the device sampler's host model: uniform with
// replacement (as the plain-torch GPU sampler that gnnbench is compared
// with, where graph.SampleNeighbors draws without), from a counter-based
// hash, so the device gives exactly its blocks for the same seed. The
// Device and SampleOnDevice options passed gnnlib/cuda's device tests on
// an H100 (2026-12-06, final run), where an arxiv-sized GraphSAGE batch
// (fan-outs 15, 10, 5, 1,024 seeds) took 3.82 ms sampled on the device
// against 6.30 ms for a plain-torch GPU sampler with PyG's SAGEConv.
//
// # Images
//
// MNIST returns an *ImageSet whose X is an N×1×28×28 tensor in [0, 1].
//
// # Where files come from
//
// Loaders look for their files under $GNNLAB_DATA (tests and CI point it at
// the project's shared datasets folder), then in the cache directory
// ($GNNLAB_CACHE, or gnnlab under os.UserCacheDir), and otherwise download
// them into the cache from the canonical source, checking the known sha256
// sums; GNNLAB_OFFLINE=1 turns downloads off. A file that is missing or
// cannot be parsed gives a *FileError that names the file and where it was
// looked for: errors.Is(err, fs.ErrNotExist) holds for a missing file and
// errors.Is(err, ErrCorrupt) for a damaged one.
//
// Tests that read datasets call datatest.Main from their TestMain: the
// loaders then read the shared datasets beside the checkout, offline.
//
// BUG(gnnlab): Only the Cora files' sha256 sums are known, so CiteSeer and
// PubMed downloads are not checked; only Cora is tested on real data.
//
// BUG(gnnlab): LoadTU ignores edge labels and attributes and graph
// attributes; its error messages count non-blank lines.
//
// BUG(gnnlab): With the Device option the features must be dense. The
// device sampler draws with replacement only.
//
// BUG(gnnlab): Planetoid reads numeric numpy arrays only; object arrays (the
// NELL variant) are not supported.
package data
