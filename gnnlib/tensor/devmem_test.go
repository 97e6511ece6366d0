package tensor_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

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
