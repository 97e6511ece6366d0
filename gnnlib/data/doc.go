// Package data loads the datasets that gnnlab's notebooks train on: the
// Planetoid citation graphs (Cora, CiteSeer, PubMed), Zachary's karate
// club and the MNIST digits.
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
// BUG(gnnlab): Planetoid reads numeric numpy arrays only; object arrays (the
// NELL variant) are not supported.
package data
