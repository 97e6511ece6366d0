package cuda

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"unsafe"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// This file is the user-kernel API: a learner's own CUDA C, compiled at
// run time, or PTX, loaded as a module of its own and launched on this
// package's tensors on the device's stream.

// ErrNoCompiler is wrapped by the error CompilePTX returns when neither
// NVRTC (in a -tags cuda binary) nor nvcc can be found.
var ErrNoCompiler = errors.New("gnnlib/cuda: no CUDA C compiler")

// Module is a user's CUDA module loaded on a Device: kernels compiled by
// Device.Compile or PTX loaded by Device.LoadPTX. Its kernels run on the
// device's one stream, in order with gnnlib's own.
type Module struct {
	dev      *Device
	ptx      string
	compiler string
	handle   unsafe.Pointer            // the CUmodule
	fns      map[string]unsafe.Pointer // CUfunction by kernel name
	closed   bool
}

// Ints is an int32 vector in device memory, for kernel arguments such as
// edge lists (int* in CUDA C).
type Ints struct {
	buf *buffer
	ptr uintptr
	N   int
}

// Int32s copies data to the device.
func (d *Device) Int32s(data []int32) (*Ints, error) {
	b, err := d.uploadInts(data)
	if err != nil {
		return nil, err
	}
	return &Ints{buf: b, ptr: b.ptr, N: len(data)}, nil
}

// Host copies v back into a new slice.
func (v *Ints) Host() ([]int32, error) {
	out := make([]int32, v.N)
	if v.N == 0 {
		return out, nil
	}
	err := v.buf.dev.do(func(drv driver) error {
		return drv.dtoh(unsafe.Pointer(unsafe.SliceData(out)), v.ptr, int64(v.N)*4)
	})
	return out, err
}

// Free returns v's memory to the device's cache now.
func (v *Ints) Free() {
	if v != nil && v.buf != nil {
		v.buf.release()
	}
}

// Compile compiles CUDA C source to PTX for this device's compute
// capability (CompilePTX) and loads it (LoadPTX). Kernels to launch by
// name must be declared extern "C" __global__.
func (d *Device) Compile(src string) (*Module, error) {
	arch, err := d.computeArch()
	if err != nil {
		return nil, err
	}
	ptx, compiler, err := CompilePTX(src, arch)
	if err != nil {
		return nil, err
	}
	m, err := d.LoadPTX(ptx)
	if err != nil {
		return nil, err
	}
	m.compiler = compiler
	return m, nil
}

// LoadPTX loads PTX text as a module; the driver compiles it for the GPU
// present, and its error log comes back in the error.
func (d *Device) LoadPTX(ptx string) (*Module, error) {
	if strings.TrimSpace(ptx) == "" {
		return nil, errors.New("gnnlib/cuda: LoadPTX: empty PTX")
	}
	h, err := d.loadModule(ptx)
	if err != nil {
		return nil, err
	}
	return &Module{dev: d, ptx: ptx, compiler: "PTX given", handle: h, fns: map[string]unsafe.Pointer{}}, nil
}

// PTX returns the module's PTX text.
func (m *Module) PTX() string { return m.ptx }

// Compiler says what made the module: "NVRTC 13.0", "nvcc (path)" or
// "PTX given".
func (m *Module) Compiler() string { return m.compiler }

// Kernels lists the entry points in the module's PTX.
func (m *Module) Kernels() []string { return ptxEntries(m.ptx) }

// Launch starts kernel on a one-dimensional grid of blocks of block
// threads: Launch3 with grid and block along x and no dynamic shared
// memory.
func (m *Module) Launch(kernel string, grid, block int, args ...any) error {
	return m.Launch3(kernel, [3]int{grid, 1, 1}, [3]int{block, 1, 1}, 0, args...)
}

// Launch3 queues kernel on the device's stream with the given grid and
// block sizes, shared bytes of dynamic shared memory and args in the
// kernel's parameter order: a *Tensor, *Ints or a device *tensor.Tensor
// for a pointer parameter (float*, int*), int or int32 for int, int64 for
// long long, float32 for float, float64 for double, uintptr for any other
// device address. It returns once the kernel is queued; errors inside the
// kernel (an illegal address) are reported by the next call that waits
// for the device, such as Synchronize or Host.
func (m *Module) Launch3(kernel string, grid, block [3]int, shared int, args ...any) error {
	if m.closed {
		return fmt.Errorf("gnnlib/cuda: launch %s: module closed", kernel)
	}
	threads := 1
	for i := range 3 {
		if grid[i] < 1 || block[i] < 1 {
			return fmt.Errorf("gnnlib/cuda: launch %s: grid %v and block %v must be at least 1 in every dimension", kernel, grid, block)
		}
		threads *= block[i]
	}
	if threads > 1024 {
		return fmt.Errorf("gnnlib/cuda: launch %s: block %v has %d threads, more than the 1024 a block may have", kernel, block, threads)
	}
	slots := make([]uint64, len(args))
	for i, a := range args {
		s, err := m.slot(a)
		if err != nil {
			return fmt.Errorf("gnnlib/cuda: launch %s: argument %d: %w", kernel, i, err)
		}
		slots[i] = s
	}
	fn, ok := m.fns[kernel]
	if !ok {
		var err error
		if fn, err = m.dev.moduleFunction(m.handle, kernel); err != nil {
			return fmt.Errorf("gnnlib/cuda: launch %s: %w; the module has %v (a kernel launched by name must be extern \"C\" __global__)", kernel, err, m.Kernels())
		}
		m.fns[kernel] = fn
	}
	return m.dev.launchUser(fn, grid, block, shared, slots)
}

// slot packs one argument into an 8-byte parameter slot: the driver
// reads as many of its low bytes as the kernel's parameter has.
func (m *Module) slot(a any) (uint64, error) {
	switch v := a.(type) {
	case *Tensor:
		if v == nil || v.buf == nil {
			return 0, errors.New("nil *Tensor")
		}
		if v.buf.dev != m.dev {
			return 0, fmt.Errorf("%v is on %v, not on the module's %v", v, v.buf.dev, m.dev)
		}
		return uint64(v.ptr), nil
	case *Ints:
		if v == nil || v.buf == nil {
			return 0, errors.New("nil *Ints")
		}
		if v.buf.dev != m.dev {
			return 0, fmt.Errorf("Ints of %d values are on %v, not on the module's %v", v.N, v.buf.dev, m.dev)
		}
		return uint64(v.ptr), nil
	case *tensor.Tensor:
		if v == nil {
			return 0, errors.New("nil *tensor.Tensor")
		}
		s, ok := v.Storage().(*Tensor)
		if !ok || s.buf.dev != m.dev {
			return 0, fmt.Errorf("tensor %v is not on %v (move it there with To(dev))", v.Shape(), m.dev)
		}
		return uint64(s.ptr), nil
	case uintptr:
		return uint64(v), nil
	case int:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return 0, fmt.Errorf("int %d does not fit a CUDA int; pass an int64 for a long long parameter", v)
		}
		return uint64(uint32(int32(v))), nil
	case int32:
		return uint64(uint32(v)), nil
	case int64:
		return uint64(v), nil
	case float32:
		return uint64(math.Float32bits(v)), nil
	case float64:
		return math.Float64bits(v), nil
	}
	return 0, fmt.Errorf("type %T is not a kernel argument (want *Tensor, *Ints, a device *tensor.Tensor, int, int32, int64, float32, float64 or uintptr)", a)
}

// Close unloads the module. Kernels queued before still run.
func (m *Module) Close() error {
	if m.closed {
		return nil
	}
	m.closed = true
	return m.dev.unloadModule(m.handle)
}

// CompilePTX compiles CUDA C source to PTX for a virtual architecture
// such as "compute_90" and says which compiler did: NVRTC, the runtime
// compilation library, found at run time in a -tags cuda binary
// (libnvrtc.so of the installed toolkit, or the file GNNLAB_NVRTC
// names), else nvcc from the PATH or /usr/local/cuda/bin. A compile
// error comes back with the compiler's log. It needs no GPU.
func CompilePTX(src, arch string) (ptx, compiler string, err error) {
	if !archRE.MatchString(arch) {
		return "", "", fmt.Errorf("gnnlib/cuda: CompilePTX: architecture %q is not of the form compute_XY", arch)
	}
	ptx, compiler, err = nvrtcCompile(src, arch)
	if err == nil || !errors.Is(err, errNoNVRTC) {
		return ptx, compiler, err
	}
	why := err
	nvcc, lerr := exec.LookPath("nvcc")
	if lerr != nil {
		nvcc, lerr = exec.LookPath("/usr/local/cuda/bin/nvcc")
	}
	if lerr != nil {
		return "", "", fmt.Errorf("%w: %v, and nvcc is neither on the PATH nor in /usr/local/cuda/bin", ErrNoCompiler, why)
	}
	ptx, err = nvccCompile(nvcc, src, arch)
	if err != nil && !Built {
		return "", "", err
	}
	if err != nil {
		return "", "", fmt.Errorf("%w (and %v)", err, why)
	}
	return ptx, "nvcc (" + nvcc + ")", nil
}

var archRE = regexp.MustCompile(`^compute_[0-9]{2,3}a?$`)

// errNoNVRTC is wrapped by nvrtcCompile's error when the library is not
// there, the build cannot load it or it fails for another reason than
// the source's errors; CompilePTX then tries nvcc.
var errNoNVRTC = errors.New("NVRTC not found")

func nvccCompile(nvcc, src, arch string) (string, error) {
	dir, err := os.MkdirTemp("", "gnnlab-nvcc-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "kernel.cu"), filepath.Join(dir, "kernel.ptx")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		return "", err
	}
	msg, err := exec.Command(nvcc, "-ptx", "-arch="+arch, "-o", out, in).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("gnnlib/cuda: nvcc: %v\n%s", err, strings.ReplaceAll(string(msg), in, "kernel.cu"))
	}
	ptx, err := os.ReadFile(out)
	return string(ptx), err
}

var entryRE = regexp.MustCompile(`(?m)^\s*\.(?:visible\s+)?\.entry\s+([A-Za-z_$][\w$]*)`)

// ptxEntries lists the .entry names of a PTX text.
func ptxEntries(ptx string) []string {
	var names []string
	for _, m := range entryRE.FindAllStringSubmatch(ptx, -1) {
		names = append(names, m[1])
	}
	return names
}
