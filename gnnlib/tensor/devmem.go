package tensor

import "sync"

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
