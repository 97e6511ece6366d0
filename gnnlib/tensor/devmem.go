package tensor

// Device memory: RegisterMemory gives a device kind a cheap in-use counter
// (sampled often by gnnlib/prof without opening a device or waiting for
// its queue), and MemoryOf asks one open Backend for its full Memory.

import (
	"fmt"
	"sync"
)

var memRegistry struct {
	sync.Mutex
	inUse map[string]func() (uint64, error)
}

// RegisterMemory gives the device kind registered under name (see
// RegisterBackend) a counter of the bytes its open devices hold. A
// backend package calls it from its init function beside
// RegisterBackend; inUse must not open a device, must return an error
// when none of the kind is open, and should be cheap (gnnlib/prof's
// memory tracker samples it every few milliseconds).
func RegisterMemory(name string, inUse func() (uint64, error)) {
	memRegistry.Lock()
	defer memRegistry.Unlock()
	if memRegistry.inUse == nil {
		memRegistry.inUse = map[string]func() (uint64, error){}
	}
	memRegistry.inUse[name] = inUse
}

// DeviceMemory returns the device memory in use, in bytes, summed over
// the device kinds that registered a counter with RegisterMemory and
// have a device open; ok is false when none has. It opens no device.
func DeviceMemory() (inUse uint64, ok bool) {
	memRegistry.Lock()
	defer memRegistry.Unlock()
	for _, f := range memRegistry.inUse {
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
