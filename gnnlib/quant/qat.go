package quant

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TrainOptions set a QAT fine-tuning run. Zero fields take the defaults
// in brackets.
type TrainOptions struct {
	Epochs      int     // passes over the training rows [50 for a GNN, 1 for images]
	LR          float64 // Adam's learning rate [0.005 for a GNN, 5e-4 for images]
	WeightDecay float64 // [5e-4 for a GNN, 0 for images]
	Batch       int     // mini-batch size for images [32]
	Seed        int64   // shuffling seed for images
}

// FineTuneGNN trains q with quantization-aware training: full-batch
// cross-entropy on the rows of labels listed in rows, through
// FakeForward, with Adam. Observers keep updating, so q should be
// calibrated first. q is left in evaluation mode; call Convert next.
func FineTuneGNN(q *GNN, g *graph.Graph, x *tensor.Tensor, labels, rows []int, o TrainOptions) error {
	epochs, lr, wd := o.Epochs, o.LR, o.WeightDecay
	if epochs == 0 {
		epochs = 50
	}
	if lr == 0 {
		lr = 0.005
	}
	if wd == 0 {
		wd = 5e-4
	}
	opt := nn.NewAdam(q.Params(), lr, wd)
	defer q.SetTraining(false)
	for e := 0; e < epochs; e++ {
		q.SetTraining(true)
		out, err := q.FakeForward(g, x)
		if err != nil {
			return fmt.Errorf("quant: QAT epoch %d: %w", e, err)
		}
		loss := nn.CrossEntropy(out, labels, rows)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	return nil
}

// FineTuneSequential trains q with quantization-aware training on the
// images x [N, ...] and labels y in shuffled mini-batches with Adam.
func FineTuneSequential(q *Sequential, x *tensor.Tensor, y []int, o TrainOptions) error {
	epochs, lr, batch := o.Epochs, o.LR, o.Batch
	if epochs == 0 {
		epochs = 1
	}
	if lr == 0 {
		lr = 5e-4
	}
	if batch == 0 {
		batch = 32
	}
	opt := nn.NewAdam(q.Params(), lr, o.WeightDecay)
	rng := tensor.NewRNG(o.Seed)
	defer q.SetTraining(false)
	q.SetTraining(true)
	for e := 0; e < epochs; e++ {
		order := rng.Perm(len(y))
		for lo := 0; lo < len(order); lo += batch {
			rows := order[lo:min(lo+batch, len(order))]
			labels := make([]int, len(rows))
			for i, r := range rows {
				labels[i] = y[r]
			}
			out, err := q.FakeForward(x.IndexSelect(rows))
			if err != nil {
				return fmt.Errorf("quant: QAT epoch %d: %w", e, err)
			}
			loss := nn.CrossEntropy(out, labels, nil)
			opt.ZeroGrad()
			loss.Backward()
			opt.Step()
		}
	}
	return nil
}
