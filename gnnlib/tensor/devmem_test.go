package tensor_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestDeviceMemory checks that DeviceMemory sums the counters of the kinds
// with an open device and skips the others.
func TestDeviceMemory(t *testing.T) {
	open := false
	tensor.RegisterMemory("memtest-a", func() (uint64, error) {
		if !open {
			return 0, errors.New("none open")
		}
		return 100, nil
	})
	tensor.RegisterMemory("memtest-b", func() (uint64, error) { return 0, errors.New("none open") })
	if n, ok := tensor.DeviceMemory(); ok {
		t.Errorf("DeviceMemory() = %d, true with no device open, want false", n)
	}
	open = true
	if n, ok := tensor.DeviceMemory(); !ok || n != 100 {
		t.Errorf("DeviceMemory() = %d, %v; want 100, true", n, ok)
	}
	tensor.RegisterMemory("memtest-a", func() (uint64, error) { return 0, errors.New("none open") })
}

func TestDeviceErrorKeepsCause(t *testing.T) {
	cause := fmt.Errorf("gnnlib/cuda: GATv2Attention with 12 channels per head (the fused kernel takes 8, 16): %w", tensor.ErrNotOnDevice)
	tests := []struct {
		err  error
		want string
	}{
		{tensor.ErrNotOnDevice, "tensor: GATv2Attention is not available on cuda:0 yet; move its operands to the CPU with x.CPU() first"},
		{cause, "tensor: GATv2Attention is not available on cuda:0 yet (gnnlib/cuda: GATv2Attention with 12 channels per head (the fused kernel takes 8, 16)); move its operands to the CPU with x.CPU() first"},
		{errors.New("out of memory"), "tensor: GATv2Attention on cuda:0: out of memory"},
	}
	for _, tt := range tests {
		e := &tensor.DeviceError{Op: "GATv2Attention", Device: "cuda:0", Err: tt.err}
		if got := e.Error(); got != tt.want {
			t.Errorf("DeviceError{Err: %v}.Error() = %q, want %q", tt.err, got, tt.want)
		}
		if !errors.Is(e, tt.err) {
			t.Errorf("errors.Is(DeviceError{Err: %v}, its cause) = false, want true", tt.err)
		}
	}
}
