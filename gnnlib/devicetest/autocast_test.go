package devicetest_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestFakeAutocast runs the Autocast checks on the fake device, whose ops
// are the CPU's: the device dispatch under Autocast (rounding through
// tensor.HalfBackend, gradients, GradScaler) agrees with the emulation
// on the CPU within a few BF16 ulps (the device path's fused layers round
// once where the CPU's op chain rounds after each op).
func TestFakeAutocast(t *testing.T) {
	devicetest.CheckAutocast(t, &devicetest.Fake{}, 1e-2)
}

// TestFakeHalfStorage runs CheckHalfStorage on the fake device, which
// keeps both 16-bit formats in 16-bit storage (HalfStorer).
func TestFakeHalfStorage(t *testing.T) {
	devicetest.CheckHalfStorage(t, &devicetest.Fake{Collect: true}, 1e-2, tensor.BFloat16, tensor.Float16)
}
