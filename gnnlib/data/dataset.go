package data

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Dataset is a node-classification dataset: one graph, a feature row and a
// label per node, and a split into training, validation and test nodes.
type Dataset struct {
	// Name is the dataset's name, such as "cora".
	Name string
	// Graph holds the edges, in both directions for the undirected
	// datasets here.
	Graph *graph.Graph
	// X is the NumNodes×NumFeatures feature matrix: a sparse (CSR) tensor
	// for Planetoid, dense for Karate Club.
	X *tensor.Tensor
	// Y holds each node's class in [0, NumClasses).
	Y []int
	// TrainIdx, ValIdx and TestIdx list the nodes of each split.
	TrainIdx, ValIdx, TestIdx []int

	numClasses int
	features   *csr // nil for a dense X
}

// NumNodes returns the number of nodes.
func (d *Dataset) NumNodes() int { return len(d.Y) }

// NumFeatures returns the width of a feature row.
func (d *Dataset) NumFeatures() int { return d.X.Size(1) }

// NumClasses returns the number of classes.
func (d *Dataset) NumClasses() int { return d.numClasses }

// String summarises the dataset as PyG prints its Data object.
func (d *Dataset) String() string {
	return fmt.Sprintf("%s(nodes=%d, edges=%d, features=%d, classes=%d, train=%d, val=%d, test=%d)",
		d.Name, d.NumNodes(), d.Graph.NumEdges(), d.NumFeatures(), d.NumClasses(),
		len(d.TrainIdx), len(d.ValIdx), len(d.TestIdx))
}

// FeatureCSR returns the sparse feature matrix as CSR arrays (row r's
// columns are indices[indptr[r]:indptr[r+1]]), or nils for a dataset with
// dense features. The caller must not modify them.
func (d *Dataset) FeatureCSR() (indptr, indices []int, values []float32) {
	if d.features == nil {
		return nil, nil, nil
	}
	return d.features.indptr, d.features.indices, d.features.values
}

// NormalizeFeatures scales each feature row to sum to 1 (rows of zeros
// stay zero), as PyG's NormalizeFeatures transform and the GCN paper do.
// It replaces X with a new tensor.
func (d *Dataset) NormalizeFeatures() {
	if d.features == nil {
		x := d.X.Clone()
		data, f := x.Data(), d.NumFeatures()
		for r := 0; r < d.NumNodes(); r++ {
			normalizeRow(data[r*f : r*f+f])
		}
		d.X = x
		return
	}
	c := *d.features
	c.values = append([]float32(nil), c.values...)
	for r := 0; r < c.rows; r++ {
		normalizeRow(c.values[c.indptr[r]:c.indptr[r+1]])
	}
	d.features = &c
	d.setX()
}

func normalizeRow(row []float32) {
	var s float32
	for _, v := range row {
		s += v
	}
	if s == 0 {
		return
	}
	for i := range row {
		row[i] /= s
	}
}

// setX makes X from the sparse features.
func (d *Dataset) setX() {
	c := d.features
	d.X = tensor.SparseFromCSR(c.rows, c.cols, c.indptr, c.indices, c.values)
}
