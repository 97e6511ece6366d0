package nn_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/interrupt"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestExplainNodeInterrupted raises gnnlib/interrupt during a very long
// ExplainNode: it returns an *interrupt.Error soon after (the time is
// printed, not asserted), and the model and its optimizer train on
// afterwards as before (issue 28, 3).
func TestExplainNodeInterrupted(t *testing.T) {
	defer interrupt.Clear()
	ds := data.KarateClub()
	nn.Seed(3)
	c1, c2 := nn.NewGCNConv(ds.NumFeatures(), 16), nn.NewGCNConv(16, ds.NumClasses())
	forward := func(g *graph.Graph, x, w *tensor.Tensor) *tensor.Tensor {
		return c2.ForwardWeighted(g, c1.ForwardWeighted(g, x, w).ReLU(), w)
	}
	params := append(c1.Params(), c2.Params()...)
	opt := nn.NewAdam(params, 0.01, 5e-4)
	ones := tensor.Ones(ds.Graph.NumEdges())
	train := func(epochs int) float64 {
		var last float64
		for range epochs {
			loss := nn.CrossEntropy(forward(ds.Graph, ds.X, ones), ds.Y, ds.TrainIdx)
			opt.ZeroGrad()
			loss.Backward()
			opt.Step()
			last = float64(loss.Item())
		}
		return last
	}
	before := train(20)

	var raised time.Time
	timer := time.AfterFunc(100*time.Millisecond, func() {
		raised = time.Now()
		interrupt.Raise()
	})
	defer timer.Stop()
	ex, err := nn.ExplainNode(forward, ds.Graph, ds.X, 0, nn.ExplainerOptions{Epochs: 100_000_000})
	took := time.Since(raised)
	var ie *interrupt.Error
	if ex != nil || !errors.Is(err, interrupt.ErrInterrupted) || !errors.As(err, &ie) {
		t.Fatalf("ExplainNode interrupted = %v, %v; want nil and an *interrupt.Error", ex, err)
	}
	t.Logf("ExplainNode returned %v after the interrupt: %v", took.Round(time.Microsecond), err)
	interrupt.Clear()

	after := train(50)
	if math.IsNaN(after) || after >= before {
		t.Errorf("loss after 50 more epochs = %g, want below %g (the model and optimizer train on after the interrupt)", after, before)
	}
	if _, err := nn.ExplainNode(forward, ds.Graph, ds.X, 0, nn.ExplainerOptions{Epochs: 5}); err != nil {
		t.Errorf("ExplainNode after Clear = %v, want it to run", err)
	}
}
