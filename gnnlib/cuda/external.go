package cuda

// Run runs fn on the device's goroutine, the OS thread on which its CUDA
// context is current, after the work queued before it, and returns fn's
// error. stream is the handle (a CUstream, which the CUDA runtime calls
// cudaStream_t) of the one stream on which the device runs all its
// kernels and copies, so that work fn queues there runs in order with
// them. It is for libraries that call other CUDA libraries on the
// device (gnnlib/dist's NCCL collectives). fn must not call the methods of
// the Device or of its tensors: they would wait for fn to return.
func (d *Device) Run(fn func(stream uintptr) error) error {
	return d.do(func(drv driver) error { return fn(drv.streamHandle()) })
}

// DevicePtr returns the device address of t's first value, valid while t
// is alive and not freed, for Run's callers.
func (t *Tensor) DevicePtr() uintptr { return t.ptr }
