package nn_test

import (
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestGradScalerOverflowSkips forces an FP16 overflow in the backward pass
// (a scale so large that the scaled gradients exceed 65504): the step is
// skipped, the parameters and the optimiser are untouched, and the scale
// drops by the backoff factor; the next step, with the lowered scale,
// goes through.
func TestGradScalerOverflowSkips(t *testing.T) {
	nn.Seed(1)
	lin := nn.NewLinear(4, 3)
	opt := nn.NewSGD(lin.Params(), 0.1, 0, 0)
	x := tensor.NewRNG(2).Normal(0, 1, 8, 4)
	scaler := nn.NewGradScaler()
	scaler.SetScale(1e9)
	before := lin.Params()[0].Clone()

	step := func() bool {
		var loss *tensor.Tensor
		tensor.Autocast(tensor.Float16, func() {
			loss = lin.Forward(x).Square().Mean()
		})
		opt.ZeroGrad()
		scaler.Scale(loss).Backward()
		ok := scaler.Step(opt, lin.Params())
		scaler.Update()
		return ok
	}
	if step() {
		t.Fatalf("Step with scale 1e9 under Float16 ran the optimiser; want it skipped (gradients overflow)")
	}
	if !tensor.AllClose(lin.Params()[0], before, 0, 0) {
		t.Errorf("a skipped step changed the weights")
	}
	if got := scaler.CurrentScale(); got != 5e8 {
		t.Errorf("scale after an overflow = %v, want 5e8 (halved)", got)
	}
	if scaler.Skipped() != 1 {
		t.Errorf("Skipped() = %d, want 1", scaler.Skipped())
	}
	scaler.SetScale(1024)
	if !step() {
		t.Fatalf("Step with scale 1024 was skipped")
	}
	if tensor.AllClose(lin.Params()[0], before, 0, 0) {
		t.Errorf("a step that ran left the weights unchanged")
	}
	if got := scaler.CurrentScale(); got != 1024 {
		t.Errorf("scale after one good step = %v, want 1024 (grows after %d)", got, scaler.GrowthInterval)
	}
}

// TestGradScalerKeepsSmallGradients: a gradient of 1e-8 flushes to zero in
// FP16 (its smallest value is 2⁻²⁴ ≈ 6e-8) unless the loss is scaled.
func TestGradScalerKeepsSmallGradients(t *testing.T) {
	w := tensor.FromSlice([]float32{1, 2}).SetRequiresGrad(true)
	x := tensor.FromSlice([]float32{1e-8, 3e-8})
	grad := func(scale float64) []float32 {
		w.ZeroGrad()
		s := nn.NewGradScaler()
		s.SetScale(scale)
		var loss *tensor.Tensor
		tensor.Autocast(tensor.Float16, func() { loss = w.Mul(x).Sum() })
		s.Scale(loss).Backward()
		s.Step(nn.NewSGD([]*tensor.Tensor{w}, 0, 0, 0), []*tensor.Tensor{w})
		return w.Grad().Data()
	}
	if g := grad(1); g[0] != 0 {
		t.Errorf("unscaled FP16 gradient = %v, want 0 (flushed)", g)
	}
	// 65536 itself would overflow: the gradient of the sum's input is
	// the scale, above FP16's largest 65504 (the scaler then backs off).
	if g := grad(65536); !math.IsInf(float64(g[0]), 1) {
		t.Errorf("FP16 gradient with scale 65536 = %v, want +Inf (65536 > 65504)", g)
	}
	g := grad(1024)
	for i, want := range []float64{1e-8, 3e-8} {
		if math.Abs(float64(g[i])-want) > want*5e-3 { // 1024·1e-8 is an FP16 subnormal (spacing 6e-8)
			t.Errorf("scaled FP16 gradient[%d] = %v, want %v", i, g[i], want)
		}
	}
}

// TestCoraMixedPrecision trains GCN and GAT on Cora over 10 seeds in
// float32 and under Autocast (CPU emulation of 16-bit storage) and
// checks that the mean test accuracies agree within 0.5 points
// (devicetest.CheckCoraAutocast; gnnlib/cuda runs it on the GPU).
func TestCoraMixedPrecision(t *testing.T) {
	ds := cora(t)
	seeds := 10
	if testing.Short() {
		seeds = 3
	}
	devicetest.CheckCoraAutocast(t, nil, ds, seeds)
}
