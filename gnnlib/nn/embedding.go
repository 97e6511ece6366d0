package nn

import (
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Embedding is a lookup table of Num vectors of Dim features, as
// PyTorch's nn.Embedding: row i of W is the embedding of index i. Its
// gradient flows into the rows looked up (summed over repeats), so
// featureless nodes can learn their input features (node2vec-style
// embeddings, or x = emb.Lookup(all nodes) fed to a GCN).
type Embedding struct {
	Mode
	// W is the table [Num, Dim].
	W *tensor.Tensor
}

// NewEmbedding returns a table of num embeddings of dim features drawn
// from N(0, 1), as PyTorch initialises them.
func NewEmbedding(num, dim int) *Embedding {
	if num < 1 || dim < 1 {
		panic(fmt.Sprintf("nn: NewEmbedding(%d, %d): want positive sizes", num, dim))
	}
	w := tensor.Zeros(num, dim)
	fillNormal(w, 1)
	return &Embedding{W: param(w)}
}

// Lookup returns the embeddings of idx, [len(idx), Dim]. An index outside
// [0, Num) panics with an error wrapping tensor.ErrIndex.
func (e *Embedding) Lookup(idx []int) *tensor.Tensor { return e.W.IndexSelect(idx) }

// Forward looks up the indices held in x (integral values, any shape),
// returning x's shape with Dim appended, so that an Embedding can lead a
// Sequential. A value that is not an integer panics with an error
// wrapping tensor.ErrIndex.
func (e *Embedding) Forward(x *tensor.Tensor) *tensor.Tensor {
	vals := x.CPU().Data()
	idx := make([]int, len(vals))
	for i, v := range vals {
		if v != float32(math.Trunc(float64(v))) {
			panic(fmt.Errorf("nn: Embedding.Forward: element %d is %v, not an index: %w", i, v, tensor.ErrIndex))
		}
		idx[i] = int(v)
	}
	return e.Lookup(idx).Reshape(append(x.Shape(), e.W.Size(1))...)
}

// Params returns W.
func (e *Embedding) Params() []*tensor.Tensor { return []*tensor.Tensor{e.W} }

func (e *Embedding) String() string {
	return fmt.Sprintf("Embedding(%d, %d)", e.W.Size(0), e.W.Size(1))
}
