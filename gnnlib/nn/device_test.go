package nn_test

import (
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
)

// TestFakeDevice runs gnnlib/devicetest's suite on its fake device, whose
// ops are the CPU's own: it checks the device dispatch of gnnlib/tensor
// and gnnlib/nn without a GPU. gnnlib/cuda runs the same suite on the GPU.
func TestFakeDevice(t *testing.T) {
	devicetest.Run(t, &devicetest.Fake{}, devicetest.Tolerance{Op: 1e-5, Loss: 1e-5, Value: 1e-5})
}

// TestFakeDeviceComposed runs the attention cases and the shape sweep on a
// fake device without fused attention: every shape takes the composed
// device path (gathers, a softmax per destination, sums over the edges)
// that a backend's fused kernels fall back to, against the CPU.
func TestFakeDeviceComposed(t *testing.T) {
	dev := &devicetest.Fake{NoFusedAttention: true}
	var cases []devicetest.Case
	for _, c := range devicetest.OpCases(t) {
		if strings.Contains(c.Name, "GAT") {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		t.Fatal("no attention cases in devicetest.OpCases")
	}
	// The composed path sums in another order than the CPU's fused one;
	// Adam's steps, about lr·sign(g) for small gradients, carry that into
	// the parameters.
	tol := devicetest.Tolerance{Op: 1e-5, Loss: 1e-5, Value: 1e-4}
	t.Run("Ops", func(t *testing.T) { devicetest.CheckOps(t, dev, cases, tol.Op) })
	t.Run("Shapes", func(t *testing.T) { devicetest.CheckShapes(t, dev, tol) })
}
