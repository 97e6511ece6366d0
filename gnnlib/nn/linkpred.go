package nn

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// ErrLabels is wrapped by the errors of the ranking metrics given labels
// other than 0 and 1, a length mismatch, or labels of one class only.
var ErrLabels = errors.New("nn: bad binary labels")

// GAE is the graph auto-encoder of Kipf and Welling ("Variational graph
// auto-encoders", 2016) for link prediction: a two-layer GCN encoder
//
//	Z = Â·ReLU(Â·X·W1 + B1)·W2 + B2
//
// and the inner-product decoder p(u~v) = σ(<z_u, z_v>) (DotDecode). Train
// it on the training graph of a graph.LinkSplit with ReconLoss and
// fresh negative pairs each epoch; score the held-out pairs with
// LinkMetrics.
type GAE struct {
	gnnBase
	Conv1, Conv2 *GCNConv
}

// NewGAE returns a GAE encoding in features through hidden units into
// out-dimensional embeddings (Kipf and Welling's Cora model: NewGAE(1433,
// 32, 16)).
func NewGAE(in, hidden, out int) *GAE {
	m := &GAE{Conv1: NewGCNConv(in, hidden), Conv2: NewGCNConv(hidden, out)}
	m.modules = []Module{m.Conv1, m.Conv2}
	m.rng = newLayerRNG()
	return m
}

// Forward returns the node embeddings Z [N, out] on g.
func (m *GAE) Forward(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	return m.Conv2.Forward(g, m.Conv1.Forward(g, x).ReLU())
}

func (m *GAE) String() string { return m.describe("GAE") }

// DotDecode returns the logits <z_u, z_v> of the pairs, one per pair
// ([pairs.Len()]): the inner-product decoder of a GAE, with gradients to
// z. It is built of ops (IndexSelect, Mul, SumAxis).
func DotDecode(z *tensor.Tensor, pairs graph.EdgeList) *tensor.Tensor {
	if len(pairs.Src) != len(pairs.Dst) {
		panic(&tensor.ShapeError{Op: "DotDecode", A: []int{len(pairs.Src)}, B: []int{len(pairs.Dst)}, Msg: "pairs need as many sources as destinations"})
	}
	if z.Dims() != 2 {
		panic(&tensor.ShapeError{Op: "DotDecode", A: z.Shape(), Msg: "needs [N, D] embeddings"})
	}
	return z.IndexSelect(pairs.Src).Mul(z.IndexSelect(pairs.Dst)).SumAxis(1, false)
}

// ReconLoss is the reconstruction loss of a GAE, binary cross-entropy on
// the pair logits: −mean log σ(<z_u, z_v>) over the positive pairs
// − mean log(1 − σ(<z_u, z_v>)) over the negative ones, as PyG's
// GAE.recon_loss computes it (stably, from the logits).
func ReconLoss(z *tensor.Tensor, pos, neg graph.EdgeList) *tensor.Tensor {
	p := DotDecode(z, pos)
	n := DotDecode(z, neg)
	return BCEWithLogits(p, tensor.OnesLike(p)).Add(BCEWithLogits(n, tensor.ZerosLike(n)))
}

// LinkMetrics scores the positive and negative pairs with the decoder
// <z_u, z_v> and returns the ROC-AUC and the average precision of
// telling them apart.
func LinkMetrics(z *tensor.Tensor, pos, neg graph.EdgeList) (auc, ap float64, err error) {
	var scores []float32
	tensor.NoGrad(func() {
		scores = append(DotDecode(z, pos).CPU().Data(), DotDecode(z, neg).CPU().Data()...)
	})
	labels := make([]int, len(scores))
	for i := 0; i < pos.Len(); i++ {
		labels[i] = 1
	}
	if auc, err = ROCAUC(scores, labels); err != nil {
		return 0, 0, err
	}
	ap, err = AveragePrecision(scores, labels)
	return auc, ap, err
}

// rankedLabels checks the labels and returns the indices of scores in
// decreasing order with the numbers of positives and negatives.
func rankedLabels(op string, scores []float32, labels []int) (order []int, pos, neg int, err error) {
	if len(scores) != len(labels) {
		return nil, 0, 0, fmt.Errorf("nn: %s: %d scores but %d labels: %w", op, len(scores), len(labels), ErrLabels)
	}
	for i, l := range labels {
		switch l {
		case 1:
			pos++
		case 0:
			neg++
		default:
			return nil, 0, 0, fmt.Errorf("nn: %s: label %d is %d, want 0 or 1: %w", op, i, l, ErrLabels)
		}
		if math.IsNaN(float64(scores[i])) {
			return nil, 0, 0, fmt.Errorf("nn: %s: score %d is NaN", op, i)
		}
	}
	if pos == 0 || neg == 0 {
		return nil, 0, 0, fmt.Errorf("nn: %s: %d positive and %d negative labels, want both classes: %w", op, pos, neg, ErrLabels)
	}
	order = make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	return order, pos, neg, nil
}

// ROCAUC returns the area under the ROC curve of scores against binary
// labels (1 positive, 0 negative): the probability that a random
// positive scores above a random negative, ties counting one half (the
// Mann–Whitney statistic; scikit-learn's roc_auc_score). Labels other
// than 0 and 1, or of one class only, give an error wrapping ErrLabels.
func ROCAUC(scores []float32, labels []int) (float64, error) {
	order, pos, neg, err := rankedLabels("ROCAUC", scores, labels)
	if err != nil {
		return 0, err
	}
	// Walk down the scores; a group of tied scores counts its positives
	// against the negatives below it, and half against those within it.
	var wins float64
	negBelow := neg
	for i := 0; i < len(order); {
		j := i
		p, n := 0, 0
		for ; j < len(order) && scores[order[j]] == scores[order[i]]; j++ {
			if labels[order[j]] == 1 {
				p++
			} else {
				n++
			}
		}
		negBelow -= n
		wins += float64(p) * (float64(negBelow) + 0.5*float64(n))
		i = j
	}
	return wins / (float64(pos) * float64(neg)), nil
}

// AveragePrecision returns the average precision of scores against
// binary labels, Σ_n (R_n − R_{n−1})·P_n over the distinct score
// thresholds from the highest down, with precision P_n and recall R_n of
// the pairs scoring at least threshold n (scikit-learn's
// average_precision_score; tied scores form one threshold). Labels
// other than 0 and 1, or of one class only, give an error wrapping
// ErrLabels.
func AveragePrecision(scores []float32, labels []int) (float64, error) {
	order, pos, _, err := rankedLabels("AveragePrecision", scores, labels)
	if err != nil {
		return 0, err
	}
	var ap, recall float64
	tp, fp := 0, 0
	for i := 0; i < len(order); {
		j := i
		for ; j < len(order) && scores[order[j]] == scores[order[i]]; j++ {
			if labels[order[j]] == 1 {
				tp++
			} else {
				fp++
			}
		}
		r := float64(tp) / float64(pos)
		ap += (r - recall) * float64(tp) / float64(tp+fp)
		recall = r
		i = j
	}
	return ap, nil
}
