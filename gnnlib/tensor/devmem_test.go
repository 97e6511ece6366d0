package tensor_test

import (
	"errors"
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
