package nn_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
)

// TestFakeDevice runs gnnlib/devicetest's suite on its fake device, whose
// ops are the CPU's own: it checks the device dispatch of gnnlib/tensor
// and gnnlib/nn without a GPU. gnnlib/cuda runs the same suite on the GPU.
func TestFakeDevice(t *testing.T) {
	devicetest.Run(t, &devicetest.Fake{}, devicetest.Tolerance{Op: 1e-5, Loss: 1e-5, Value: 1e-5})
}
