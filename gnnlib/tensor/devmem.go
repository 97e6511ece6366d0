package tensor

// Device memory: a device kind's driver (backend.Register) carries a cheap
// in-use counter (sampled often by gnnlib/prof without opening a device or
// waiting for its queue), and MemoryOf asks one open Backend for its full
// Memory.

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/tensor/internal/contract"
)

// DeviceMemory returns the device memory in use, in bytes, summed over
// the device kinds whose driver has a memory counter and have a device
// open; ok is false when none has. It opens no device.
func DeviceMemory() (inUse uint64, ok bool) {
	for _, f := range contract.Counters() {
		if n, err := f(); err == nil {
			inUse, ok = inUse+n, true
		}
	}
	return inUse, ok
}

// Memory is a device's memory, in bytes.
type Memory struct {
	// Total and Free are the whole device, as its driver reports them.
	Total, Free int64
	// InUse is what live tensors of this process hold, Peak the most it
	// held, and Reserved what the backend took from the driver (its cache
	// included).
	InUse, Peak, Reserved int64
}

// MemoryReporter is implemented by a Backend that can report its memory.
type MemoryReporter interface {
	Memory() (Memory, error)
}

// MemoryOf returns the memory of device b, or an error wrapping
// ErrNotOnDevice when b does not report it (or is the CPU, nil).
func MemoryOf(b Backend) (Memory, error) {
	r, ok := b.(MemoryReporter)
	if !ok {
		return Memory{}, fmt.Errorf("tensor: memory of %s: %w", deviceName(b), ErrNotOnDevice)
	}
	return r.Memory()
}
