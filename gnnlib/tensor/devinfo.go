package tensor

import "fmt"

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
