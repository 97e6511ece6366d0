package cuda

import (
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// The gnnlib/nn GATv2 epoch against the hand-written one (issue 26):
// what the nn layers' backward passes do beyond the hand-written epoch's
// kernels, each behind its own switch, checked on the recording driver
// (the launches) and on a device (the values, against the old path).

// unbiasLaunches counts the unbias kernels of the third epoch of the
// arxiv-shaped nn GATv2 model (recording driver).
func unbiasLaunches(t *testing.T, onePass bool) launchCount {
	defer func(on bool) { tune.UnbiasActOnePass = on }(tune.UnbiasActOnePass)
	tune.UnbiasActOnePass = onePass
	defer fastPaths(true)()
	return nnGATv2EpochLaunches(t, epochGraph(t, 2000), []int{128, 256, 256, 64})
}

// TestUnbiasActOnePassLaunches checks that with tune.UnbiasActOnePass the
// nn GATv2 epoch rebuilds each hidden layer's attention output with
// unbias_act_to (one pass, no device-to-device copy before it) and
// launches unbias_act no more, and that off it launches unbias_act as
// before; the epochs launch as many kernels either way.
func TestUnbiasActOnePassLaunches(t *testing.T) {
	on, off := unbiasLaunches(t, true), unbiasLaunches(t, false)
	t.Logf("on: %v", on)
	if on["unbias_act_to"] != 2 || on["unbias_act"] != 0 {
		t.Errorf("with tune.UnbiasActOnePass: unbias_act_to ×%d, unbias_act ×%d, want 2 and 0 (two hidden GATv2 layers)", on["unbias_act_to"], on["unbias_act"])
	}
	if off["unbias_act_to"] != 0 || off["unbias_act"] != 2 {
		t.Errorf("without tune.UnbiasActOnePass: unbias_act_to ×%d, unbias_act ×%d, want 0 and 2", off["unbias_act_to"], off["unbias_act"])
	}
	if on.total() != off.total() {
		t.Errorf("%d launches with tune.UnbiasActOnePass, %d without", on.total(), off.total())
	}
}

// TestUnbiasActOnePass checks on a device that the backend's UnbiasAct
// (nn.GATv2OutOps) gives the same bits in one pass (unbias_act_to) as a
// copy turned back in place (unbias_act), for the fused layers' ReLU and
// dropout and for an output layer's bias alone, and leaves y as it was.
func TestUnbiasActOnePass(t *testing.T) {
	dev := defaultOrSkip(t)
	defer func(on bool) { tune.UnbiasActOnePass = on }(tune.UnbiasActOnePass)
	be := dev.be
	const rows, cols = 3001, 96
	// y as a layer's activation leaves it: zeros where ReLU or dropout
	// removed the value.
	yh := tensor.Randn(5, rows, cols)
	for i, v := range yh.Data() {
		if v < 0 || i%7 == 0 {
			yh.Data()[i] = 0
		}
	}
	y := yh.To(be)
	b := tensor.Randn(6, 1, cols).To(be)
	for _, c := range []struct {
		relu bool
		p    float32
	}{{true, 0.5}, {true, 0}, {false, 0.3}, {false, 0}} {
		run := func(onePass bool) []float32 {
			tune.UnbiasActOnePass = onePass
			s, err := be.UnbiasAct(y, b, c.relu, c.p)
			if err != nil {
				t.Fatalf("UnbiasAct(relu=%v, p=%g), one pass %v: %v", c.relu, c.p, onePass, err)
			}
			return tbackend.FromStorage(s, rows, cols).CPU().Data()
		}
		got, want := run(true), run(false)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("UnbiasAct(relu=%v, p=%g)[%d] = %g in one pass, %g copied", c.relu, c.p, i, got[i], want[i])
			}
		}
		for i, v := range y.CPU().Data() {
			if v != yh.Data()[i] {
				t.Fatalf("UnbiasAct(relu=%v, p=%g) changed y[%d]: %g, was %g", c.relu, c.p, i, v, yh.Data()[i])
			}
		}
	}
	_ = nn.GATv2OutOps(be)
}
