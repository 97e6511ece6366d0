//go:build cuda

package cuda

// #cgo LDFLAGS: -lcuda -ldl
// #include <cuda.h>
// int gnnlabInitStatus(CUresult *res, const char **dlerr);
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"gorgonia.org/cu"
)

// Built reports whether this binary was built with the cuda tag.
const Built = true

// cuDriver implements driver on gorgonia.org/cu: one context, one module
// loaded from the embedded PTX, one non-blocking stream.
type cuDriver struct {
	dev cu.Device
	ctx cu.CUContext
	mod cu.Module
	// mod80 holds the sm80_* kernels (ptxSM80), loaded on GPUs of
	// compute capability 8.0 or more; has80 says whether it was.
	mod80 cu.Module
	has80 bool
	// mod90 holds the sm90_* kernels (ptxSM90a), loaded on GPUs of
	// compute capability 9.0; has90 says whether it was, err90 why not
	// where the driver could not compile it (the other modules run).
	mod90  cu.Module
	has90  bool
	err90  error
	stream cu.Stream
	fns    map[string]cu.Function
	desc   string
	nsm    int
	// ev are the start and stop events of timeStart and timeStop, made at
	// first use.
	ev [2]cu.Event
	// ptrs is reused by launch to pass the argument slots' addresses.
	ptrs []unsafe.Pointer
	// smemOptin is the most shared memory a block may have when its
	// kernel asks (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
	// dynShared the dynamic size each kernel was allowed so far
	// (cuFuncSetAttribute), above the 48 KB every kernel gets.
	smemOptin int
	dynShared map[string]int
}

// defaultShared is the dynamic shared memory a kernel may use without
// cuFuncSetAttribute.
const defaultShared = 48 << 10

func (d *cuDriver) sharedMax() int { return d.smemOptin }

// sm90aLoaded reports whether the sm90_* kernels' module loaded
// (sm90aLoader).
func (d *cuDriver) sm90aLoaded() bool { return d.has90 }

// functionShared is function for a launch with shared bytes of dynamic
// shared memory: above 48 KB it raises the kernel's limit once (to the
// largest size asked so far), after checking that its static shared memory
// and shared together fit the device's opt-in limit.
func (d *cuDriver) functionShared(kernel string, shared int) (cu.Function, error) {
	fn, err := d.function(kernel)
	if err != nil || shared <= defaultShared || shared <= d.dynShared[kernel] {
		return fn, err
	}
	cf := *(*C.CUfunction)(unsafe.Pointer(&fn))
	var static C.int
	if r := C.cuFuncGetAttribute(&static, C.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, cf); r != C.CUDA_SUCCESS {
		return fn, fmt.Errorf("gnnlib/cuda: kernel %s: static shared memory: %s", kernel, resultText(r))
	}
	if int(static)+shared > d.smemOptin {
		return fn, fmt.Errorf("gnnlib/cuda: launch %s: %w: %d bytes of dynamic and %d of static shared memory, the device allows a block %d (%s)",
			kernel, errSharedMemory, shared, int(static), d.smemOptin, d.desc)
	}
	if r := C.cuFuncSetAttribute(cf, C.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, C.int(shared)); r != C.CUDA_SUCCESS {
		return fn, fmt.Errorf("gnnlib/cuda: kernel %s: allow %d bytes of dynamic shared memory: %s", kernel, shared, resultText(r))
	}
	// All of the SM's unified L1 as shared memory, so that as many blocks
	// as the kernel's launch bounds say fit (the carveout is a hint).
	if r := C.cuFuncSetAttribute(cf, C.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, C.CU_SHAREDMEM_CARVEOUT_MAX_SHARED); r != C.CUDA_SUCCESS {
		return fn, fmt.Errorf("gnnlib/cuda: kernel %s: shared-memory carveout: %s", kernel, resultText(r))
	}
	d.dynShared[kernel] = shared
	return fn, nil
}

// noDeviceHint says how to get a device, or to do without one.
const noDeviceHint = "check that nvidia-smi lists a GPU and that CUDA_VISIBLE_DEVICES does not hide it, or use the CPU (the default backend)"

// initError returns the error of the driver's cuInit, which gorgonia.org/cu
// called in its initialiser through the interposer in cuinit_cuda.c, or nil
// if it succeeded.
func initError() error {
	var res C.CUresult
	var dlerr *C.char
	switch C.gnnlabInitStatus(&res, &dlerr) {
	case 0:
		// Not interposed: cu's initialiser called the driver directly,
		// and since the process is running, cuInit succeeded.
		return nil
	case 2:
		return fmt.Errorf("%w: the CUDA driver library has no cuInit (%s); reinstall the NVIDIA driver, or use the CPU (the default backend)",
			ErrNoDevice, C.GoString(dlerr))
	}
	if res == C.CUDA_SUCCESS {
		return nil
	}
	return fmt.Errorf("%w: cuInit failed with %s; %s", ErrNoDevice, resultText(res), noDeviceHint)
}

// cuInitInterposed reports whether gorgonia.org/cu's call to cuInit went
// through the interposer in cuinit_cuda.c.
func cuInitInterposed() bool {
	var res C.CUresult
	var dlerr *C.char
	return C.gnnlabInitStatus(&res, &dlerr) != 0
}

// resultText names a driver result, e.g. "CUDA_ERROR_NO_DEVICE (no
// CUDA-capable device is detected)".
func resultText(r C.CUresult) string {
	var name, desc *C.char
	if C.cuGetErrorName(r, &name) != C.CUDA_SUCCESS || name == nil {
		return fmt.Sprintf("CUresult %d", int(r))
	}
	s := C.GoString(name)
	if C.cuGetErrorString(r, &desc) == C.CUDA_SUCCESS && desc != nil {
		s += " (" + C.GoString(desc) + ")"
	}
	return s
}

func openDriver(ordinal int) (driver, error) {
	if err := initError(); err != nil {
		return nil, err
	}
	n, err := cu.NumDevices()
	if err != nil {
		return nil, fmt.Errorf("%w: %v; %s", ErrNoDevice, err, noDeviceHint)
	}
	if n <= ordinal {
		return nil, fmt.Errorf("%w: the driver sees %d devices, device %d asked for; %s", ErrNoDevice, n, ordinal, noDeviceHint)
	}
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDevice, err)
	}
	ctx, err := dev.MakeContext(cu.SchedAuto)
	if err != nil {
		return nil, fmt.Errorf("gnnlib/cuda: create context: %w", err)
	}
	d := &cuDriver{dev: dev, ctx: ctx, fns: map[string]cu.Function{}, dynShared: map[string]int{}}
	major, _ := dev.Attribute(cu.ComputeCapabilityMajor)
	minor, _ := dev.Attribute(cu.ComputeCapabilityMinor)
	d.nsm, _ = dev.Attribute(cu.MultiprocessorCount)
	name, _ := dev.Name()
	var optin C.int
	if C.cuDeviceGetAttribute(&optin, C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, C.CUdevice(dev)) != C.CUDA_SUCCESS || optin < defaultShared {
		optin = defaultShared
	}
	d.smemOptin = int(optin)
	d.desc = fmt.Sprintf("%s (sm_%d%d, %d SMs)", strings.TrimSpace(name), major, minor, d.nsm)
	// The driver JIT-compiles the PTX for the GPU present.
	if d.mod, err = cu.LoadData(ptxSource); err != nil {
		ctx.Destroy()
		return nil, fmt.Errorf("gnnlib/cuda: load kernels (PTX JIT): %w", err)
	}
	if major >= 8 {
		if d.mod80, err = cu.LoadData(ptxSM80); err != nil {
			ctx.Destroy()
			return nil, fmt.Errorf("gnnlib/cuda: load the sm80 kernels (PTX JIT): %w", err)
		}
		d.has80 = true
	}
	if major == 9 && minor == 0 {
		if d.mod90, err = cu.LoadData(ptxSM90a); err != nil {
			d.err90 = err
		} else {
			d.has90 = true
		}
	}
	if d.stream, err = cu.MakeStream(cu.NonBlocking); err != nil {
		ctx.Destroy()
		return nil, fmt.Errorf("gnnlib/cuda: create stream: %w", err)
	}
	return d, nil
}

func (d *cuDriver) name() string { return d.desc }
func (d *cuDriver) sms() int     { return d.nsm }

func (d *cuDriver) alloc(n int64) (uintptr, error) {
	p, err := cu.MemAlloc(n)
	return uintptr(p), err
}

func (d *cuDriver) free(p uintptr) error { return cu.MemFree(cu.DevicePtr(p)) }

func (d *cuDriver) allocHost(n int64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	if r := C.cuMemAllocHost(&p, C.size_t(n)); r != C.CUDA_SUCCESS {
		return nil, fmt.Errorf("gnnlib/cuda: cuMemAllocHost(%d): error %d", n, int(r))
	}
	return p, nil
}

func (d *cuDriver) freeHost(p unsafe.Pointer) error { return cu.MemFreeHost(p) }

func (d *cuDriver) htod(dst uintptr, src unsafe.Pointer, n int64, async bool) error {
	if err := cu.MemcpyHtoDAsync(cu.DevicePtr(dst), src, n, d.stream); err != nil {
		return err
	}
	if async {
		return nil
	}
	return d.stream.Synchronize()
}

func (d *cuDriver) dtoh(dst unsafe.Pointer, src uintptr, n int64) error {
	if err := cu.MemcpyDtoHAsync(dst, cu.DevicePtr(src), n, d.stream); err != nil {
		return err
	}
	return d.stream.Synchronize()
}

func (d *cuDriver) dtod(dst, src uintptr, n int64) error {
	return cu.MemcpyDtoDAsync(cu.DevicePtr(dst), cu.DevicePtr(src), n, d.stream)
}

func (d *cuDriver) memsetD32(dst uintptr, v uint32, n int64) error {
	return cu.MemsetD32Async(cu.DevicePtr(dst), uint(v), n, d.stream)
}

func (d *cuDriver) launch(kernel string, grid, block [3]int, shared int, args []uint64) error {
	fn, err := d.functionShared(kernel, shared)
	if err != nil {
		return err
	}
	d.ptrs = d.ptrs[:0]
	for i := range args {
		d.ptrs = append(d.ptrs, unsafe.Pointer(&args[i]))
	}
	if err := fn.Launch(grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, d.stream, d.ptrs); err != nil {
		return fmt.Errorf("gnnlib/cuda: launch %s: %w", kernel, err)
	}
	return nil
}

func (d *cuDriver) sync() error { return d.stream.Synchronize() }

func (d *cuDriver) timeStart() error {
	if d.ev[0] == (cu.Event{}) {
		for i := range d.ev {
			ev, err := cu.MakeEvent(cu.DefaultEvent)
			if err != nil {
				return fmt.Errorf("gnnlib/cuda: create event: %w", err)
			}
			d.ev[i] = ev
		}
	}
	return d.ev[0].Record(d.stream)
}

func (d *cuDriver) timeStop() (float64, error) {
	if err := d.ev[1].Record(d.stream); err != nil {
		return 0, err
	}
	if err := d.ev[1].Synchronize(); err != nil {
		return 0, err
	}
	return d.ev[0].Elapsed(d.ev[1])
}

func (d *cuDriver) streamHandle() uintptr { return uintptr(unsafe.Pointer(d.stream.C())) }

func (d *cuDriver) memInfo() (free, total int64, err error) { return cu.MemInfo() }

func (d *cuDriver) close() error {
	if d.ev[0] != (cu.Event{}) {
		cu.DestroyEvent(&d.ev[0])
		cu.DestroyEvent(&d.ev[1])
	}
	d.stream.Destroy()
	return d.ctx.Destroy()
}
