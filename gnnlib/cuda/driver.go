package cuda

import "unsafe"

// driver is the thin layer over the CUDA driver API that the cuda build tag
// supplies (driver_cuda.go) and the default build replaces by a stub that
// returns ErrNoCUDA (driver_nocuda.go). Everything above it — allocator,
// tensors, graphs, kernels' launch geometry — is ordinary Go that compiles,
// vets and is documented in every build.
//
// All methods must be called on the OS thread that opened the driver; the
// Device guarantees that by running every call on its locked goroutine.
type driver interface {
	// name describes the device, e.g. "NVIDIA H200 (sm_90, 132 SMs)".
	name() string
	// sms returns the number of multiprocessors, for grid sizing.
	sms() int
	// alloc reserves n bytes of device memory.
	alloc(n int64) (uintptr, error)
	free(p uintptr) error
	// allocHost and freeHost manage page-locked host memory for copies.
	allocHost(n int64) (unsafe.Pointer, error)
	freeHost(p unsafe.Pointer) error
	// htod and dtoh copy on the device's stream; with async false they
	// return after the copy completed.
	htod(dst uintptr, src unsafe.Pointer, n int64, async bool) error
	dtoh(dst unsafe.Pointer, src uintptr, n int64) error
	dtod(dst, src uintptr, n int64) error
	memsetD32(dst uintptr, v uint32, n int64) error
	// launch starts the named kernel of the embedded module on the stream
	// with shared bytes of dynamic shared memory a block; each argument is
	// one 8-byte slot (a pointer, or an int or float in its low bytes).
	launch(kernel string, grid, block [3]int, shared int, args []uint64) error
	// graphMake builds a CUDA graph of nodes, each after the one before,
	// and instantiates it (keeping the template, whose nodes graphSet
	// names); graphSet updates node i's
	// arguments (a fill's destination and value) in place; graphLaunch
	// runs it on the stream; graphFree destroys it (GraphReplay).
	graphMake(nodes []graphNode) (graphExec, error)
	graphSet(g graphExec, i int, n *graphNode) error
	graphLaunch(g graphExec) error
	graphFree(g graphExec)
	// sync waits for the stream.
	sync() error
	// timeStart records an event on the stream; timeStop records a second
	// one, waits for it and returns the milliseconds between the two.
	timeStart() error
	timeStop() (float64, error)
	// streamHandle returns the stream's CUstream handle, for Device.Run.
	streamHandle() uintptr
	// memInfo reports the driver's free and total device memory.
	memInfo() (free, total int64, err error)
	close() error
}

// sharedLimiter is a driver that knows the most shared memory a block may
// have (the opt-in limit, static and dynamic together): Device.launchShared
// refuses a larger dynamic size before it reaches the driver. A driver
// without it (a test's) sends every size on.
type sharedLimiter interface {
	sharedMax() int
}

// sm90aLoader is a driver that says whether it loaded sm90a.ptx (the
// wgmma kernels): on a GPU of compute capability 9.0 whose driver could
// not compile that module, the bfloat16 GEMM keeps to the other kernels.
// A driver without it (a test's) counts as loaded on sm_90.
type sm90aLoader interface {
	sm90aLoaded() bool
}
