package nn

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// CrossEntropy is the mean cross-entropy of logits [N, C] against labels
// (one per row, len(labels) == N) over the rows in idx; idx nil means all
// rows. It is fused and numerically stable, and indexing by row lets one
// label slice serve the training, validation and test sets.
func CrossEntropy(logits *tensor.Tensor, labels, idx []int) *tensor.Tensor {
	return tensor.CrossEntropy(logits, labels, idx)
}

// NLL is the mean negative log-likelihood of log-probabilities [N, C]
// (from LogSoftmax) against labels over the rows in idx (nil: all).
func NLL(logp *tensor.Tensor, labels, idx []int) *tensor.Tensor {
	return tensor.NLL(logp, labels, idx)
}

// MSE is the mean squared error between pred and target (same shape).
func MSE(pred, target *tensor.Tensor) *tensor.Tensor { return tensor.MSE(pred, target) }

// BCEWithLogits is the mean binary cross-entropy of sigmoid(logits)
// against target in [0, 1], computed stably from the logits.
func BCEWithLogits(logits, target *tensor.Tensor) *tensor.Tensor {
	return tensor.BCEWithLogits(logits, target)
}

// Accuracy returns the fraction of rows in idx (nil: all rows) whose
// largest logit is at the row's label. Logits are [N, C], labels has N
// entries. It returns 0 for an empty idx.
func Accuracy(logits *tensor.Tensor, labels, idx []int) float64 {
	s := logits.Shape()
	if len(s) != 2 || s[0] != len(labels) {
		panic(&tensor.ShapeError{Op: "Accuracy", A: s, B: []int{len(labels)}, Msg: "needs [N, C] logits and N labels"})
	}
	// On a device, ArgMax copies the logits back: the prediction is
	// compared with host labels anyway.
	pred := logits.ArgMax(1)
	if idx == nil {
		idx = make([]int, len(labels))
		for i := range idx {
			idx[i] = i
		}
	}
	if len(idx) == 0 {
		return 0
	}
	right := 0
	for _, r := range idx {
		if r < 0 || r >= len(labels) {
			panic(fmt.Errorf("nn: Accuracy: row %d of %d: %w", r, len(labels), tensor.ErrIndex))
		}
		if pred[r] == labels[r] {
			right++
		}
	}
	return float64(right) / float64(len(idx))
}
