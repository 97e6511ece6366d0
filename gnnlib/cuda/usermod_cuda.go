//go:build cuda

package cuda

/*
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <cuda.h>

// NVRTC is opened with dlopen, not linked: the toolkit that built the
// binary (11.8 here) and the one on the GPU machine (13) name their
// libraries differently. The prototypes are NVRTC's C API.
typedef int (*nvrtcCreate_t)(void **, const char *, const char *, int, const char *const *, const char *const *);
typedef int (*nvrtcCompile_t)(void *, int, const char *const *);
typedef int (*nvrtcSize_t)(void *, size_t *);
typedef int (*nvrtcGet_t)(void *, char *);
typedef int (*nvrtcDestroy_t)(void **);
typedef const char *(*nvrtcErr_t)(int);
typedef int (*nvrtcVersion_t)(int *, int *);

static void *gnnlabNVRTC;

// gnnlabNVRTCOpen loads the library at path; 0 on success, else dlerror's text in *err.
static int gnnlabNVRTCOpen(const char *path, const char **err) {
	if (gnnlabNVRTC) return 0;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) { *err = dlerror(); return 1; }
	if (!dlsym(h, "nvrtcCreateProgram") || !dlsym(h, "nvrtcGetPTX")) { *err = "no nvrtcCreateProgram or nvrtcGetPTX"; dlclose(h); return 1; }
	gnnlabNVRTC = h;
	return 0;
}

static void gnnlabNVRTCVersion(int *major, int *minor) {
	nvrtcVersion_t v = (nvrtcVersion_t)dlsym(gnnlabNVRTC, "nvrtcVersion");
	*major = *minor = 0;
	if (v) v(major, minor);
}

// gnnlabNVRTCCompile compiles src with the options; on return *ptx and
// *log are malloc'd (either may be NULL) and *what names a failed call.
static int gnnlabNVRTCCompile(const char *src, int nopt, const char **opts, char **ptx, char **log, const char **what) {
	nvrtcCreate_t create = (nvrtcCreate_t)dlsym(gnnlabNVRTC, "nvrtcCreateProgram");
	nvrtcCompile_t compile = (nvrtcCompile_t)dlsym(gnnlabNVRTC, "nvrtcCompileProgram");
	nvrtcSize_t logSize = (nvrtcSize_t)dlsym(gnnlabNVRTC, "nvrtcGetProgramLogSize");
	nvrtcGet_t getLog = (nvrtcGet_t)dlsym(gnnlabNVRTC, "nvrtcGetProgramLog");
	nvrtcSize_t ptxSize = (nvrtcSize_t)dlsym(gnnlabNVRTC, "nvrtcGetPTXSize");
	nvrtcGet_t getPTX = (nvrtcGet_t)dlsym(gnnlabNVRTC, "nvrtcGetPTX");
	nvrtcDestroy_t destroy = (nvrtcDestroy_t)dlsym(gnnlabNVRTC, "nvrtcDestroyProgram");
	*ptx = NULL; *log = NULL; *what = "";
	if (!create || !compile || !logSize || !getLog || !ptxSize || !getPTX || !destroy) { *what = "dlsym"; return -1; }
	void *prog = NULL;
	int r = create(&prog, src, "kernel.cu", 0, NULL, NULL);
	if (r) { *what = "nvrtcCreateProgram"; return r; }
	int cr = compile(prog, nopt, opts);
	size_t n = 0;
	if (!logSize(prog, &n) && n > 1) {
		*log = malloc(n);
		if (getLog(prog, *log)) { free(*log); *log = NULL; }
	}
	if (cr) { *what = "nvrtcCompileProgram"; destroy(&prog); return cr; }
	if ((r = ptxSize(prog, &n))) { *what = "nvrtcGetPTXSize"; destroy(&prog); return r; }
	*ptx = malloc(n + 1);
	(*ptx)[n] = 0;
	if ((r = getPTX(prog, *ptx))) { *what = "nvrtcGetPTX"; free(*ptx); *ptx = NULL; destroy(&prog); return r; }
	destroy(&prog);
	return 0;
}

static const char *gnnlabNVRTCError(int r) {
	nvrtcErr_t e = (nvrtcErr_t)dlsym(gnnlabNVRTC, "nvrtcGetErrorString");
	return e ? e(r) : "unknown NVRTC error";
}

// gnnlabLoadModule loads PTX with the JIT's error log.
static CUresult gnnlabLoadModule(CUmodule *mod, const char *ptx, char *log, size_t logSize) {
	CUjit_option opt[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *val[2] = {log, (void *)logSize};
	return cuModuleLoadDataEx(mod, ptx, 2, opt, val);
}

static CUresult gnnlabLaunch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
	unsigned shared, CUstream s, unsigned long long *slots, int n) {
	void **params = malloc(sizeof(void *) * (n > 0 ? n : 1));
	for (int i = 0; i < n; i++) params[i] = &slots[i];
	CUresult r = cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, params, NULL);
	free(params);
	return r;
}

static CUresult gnnlabComputeCapability(int *major, int *minor) {
	CUdevice d;
	CUresult r = cuCtxGetDevice(&d);
	if (r) return r;
	if ((r = cuDeviceGetAttribute(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d))) return r;
	return cuDeviceGetAttribute(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"
)

// nvrtcCandidates lists where NVRTC may be: GNNLAB_NVRTC, the loader's
// search path, then the toolkits' and the pip wheels' folders.
func nvrtcCandidates() []string {
	var c []string
	if p := os.Getenv("GNNLAB_NVRTC"); p != "" {
		return []string{p}
	}
	c = append(c, "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2")
	for _, pat := range []string{
		"/usr/local/cuda/lib64/libnvrtc.so*",
		"/usr/local/cuda/targets/*/lib/libnvrtc.so*",
		"/usr/local/cuda-*/lib64/libnvrtc.so*",
		"/usr/local/lib/python3*/dist-packages/nvidia/*/lib/libnvrtc.so*",
		"/usr/local/lib/python3*/site-packages/nvidia/*/lib/libnvrtc.so*",
		"/usr/lib/python3/dist-packages/nvidia/*/lib/libnvrtc.so*",
	} {
		m, _ := filepath.Glob(pat)
		for _, p := range m {
			if !strings.Contains(filepath.Base(p), "builtins") && !strings.HasSuffix(p, ".alt.so") {
				c = append(c, p)
			}
		}
	}
	return c
}

// nvrtcErrorCompilation is NVRTC_ERROR_COMPILATION: the source has errors.
const nvrtcErrorCompilation = 6

var nvrtc struct {
	once    sync.Once
	err     error
	version string
	mu      sync.Mutex // one compilation at a time
}

func openNVRTC() error {
	nvrtc.once.Do(func() {
		var tried []string
		for _, p := range nvrtcCandidates() {
			cp := C.CString(p)
			var cerr *C.char
			ok := C.gnnlabNVRTCOpen(cp, &cerr) == 0
			C.free(unsafe.Pointer(cp))
			if ok {
				var major, minor C.int
				C.gnnlabNVRTCVersion(&major, &minor)
				nvrtc.version = fmt.Sprintf("NVRTC %d.%d", major, minor)
				return
			}
			tried = append(tried, p)
		}
		nvrtc.err = fmt.Errorf("%w (tried %s; set GNNLAB_NVRTC to the library's path)", errNoNVRTC, strings.Join(tried, ", "))
	})
	return nvrtc.err
}

func nvrtcCompile(src, arch string) (string, string, error) {
	if err := openNVRTC(); err != nil {
		return "", "", err
	}
	nvrtc.mu.Lock()
	defer nvrtc.mu.Unlock()
	opts := []string{"--gpu-architecture=" + arch}
	copts := C.malloc(C.size_t(len(opts)) * C.size_t(unsafe.Sizeof(uintptr(0))))
	defer C.free(copts)
	arr := unsafe.Slice((**C.char)(copts), len(opts))
	for i, o := range opts {
		arr[i] = C.CString(o)
		defer C.free(unsafe.Pointer(arr[i]))
	}
	csrc := C.CString(src)
	defer C.free(unsafe.Pointer(csrc))
	var ptx, log *C.char
	var what *C.char
	r := C.gnnlabNVRTCCompile(csrc, C.int(len(opts)), (**C.char)(copts), &ptx, &log, &what)
	defer C.free(unsafe.Pointer(ptx))
	defer C.free(unsafe.Pointer(log))
	if r != 0 {
		msg := ""
		if log != nil {
			msg = "\n" + strings.TrimSpace(C.GoString(log))
		}
		err := fmt.Errorf("gnnlib/cuda: %s: %s: %s%s", nvrtc.version, C.GoString(what), C.GoString(C.gnnlabNVRTCError(r)), msg)
		if r != nvrtcErrorCompilation {
			// Not the source's fault (NVRTC's builtins library missing,
			// an option it refuses): let CompilePTX try nvcc.
			err = fmt.Errorf("%w: %v", errNoNVRTC, err)
		}
		return "", nvrtc.version, err
	}
	return C.GoString(ptx), nvrtc.version, nil
}

// computeArch returns the device's virtual architecture, e.g. compute_90.
func (d *Device) computeArch() (string, error) {
	var major, minor C.int
	err := d.Run(func(uintptr) error {
		if r := C.gnnlabComputeCapability(&major, &minor); r != C.CUDA_SUCCESS {
			return fmt.Errorf("gnnlib/cuda: compute capability: %s", resultText(r))
		}
		return nil
	})
	return fmt.Sprintf("compute_%d%d", int(major), int(minor)), err
}

func (d *Device) loadModule(ptx string) (unsafe.Pointer, error) {
	var h unsafe.Pointer
	err := d.Run(func(uintptr) error {
		cptx := C.CString(ptx)
		defer C.free(unsafe.Pointer(cptx))
		const logSize = 1 << 14
		log := (*C.char)(C.calloc(logSize, 1))
		defer C.free(unsafe.Pointer(log))
		var mod C.CUmodule
		if r := C.gnnlabLoadModule(&mod, cptx, log, logSize); r != C.CUDA_SUCCESS {
			return fmt.Errorf("gnnlib/cuda: load PTX: %s\n%s", resultText(r), strings.TrimSpace(C.GoString(log)))
		}
		h = unsafe.Pointer(mod)
		return nil
	})
	return h, err
}

func (d *Device) moduleFunction(mod unsafe.Pointer, name string) (unsafe.Pointer, error) {
	var f unsafe.Pointer
	err := d.Run(func(uintptr) error {
		cname := C.CString(name)
		defer C.free(unsafe.Pointer(cname))
		var fn C.CUfunction
		if r := C.cuModuleGetFunction(&fn, C.CUmodule(mod), cname); r != C.CUDA_SUCCESS {
			return fmt.Errorf("no kernel %q (%s)", name, resultText(r))
		}
		f = unsafe.Pointer(fn)
		return nil
	})
	return f, err
}

func (d *Device) launchUser(fn unsafe.Pointer, grid, block [3]int, shared int, slots []uint64) error {
	return d.Run(func(stream uintptr) error {
		n := len(slots)
		cs := (*C.ulonglong)(C.malloc(C.size_t(8 * max(n, 1))))
		defer C.free(unsafe.Pointer(cs))
		copy(unsafe.Slice((*uint64)(unsafe.Pointer(cs)), max(n, 1)), slots)
		r := C.gnnlabLaunch(C.CUfunction(fn),
			C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]), C.uint(block[0]), C.uint(block[1]), C.uint(block[2]),
			C.uint(shared), *(*C.CUstream)(unsafe.Pointer(&stream)), cs, C.int(n))
		if r != C.CUDA_SUCCESS {
			return fmt.Errorf("gnnlib/cuda: launch: %s", resultText(r))
		}
		return nil
	})
}

func (d *Device) unloadModule(mod unsafe.Pointer) error {
	return d.Run(func(uintptr) error {
		if r := C.cuModuleUnload(C.CUmodule(mod)); r != C.CUDA_SUCCESS {
			return fmt.Errorf("gnnlib/cuda: unload module: %s", resultText(r))
		}
		return nil
	})
}
