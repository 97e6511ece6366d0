//go:build !cuda

package cuda

import (
	"fmt"
	"unsafe"
)

// Without the cuda tag there is no device to load a module on, and NVRTC
// (opened through the driver build's cgo) is not tried: CompilePTX uses
// nvcc.

func nvrtcCompile(string, string) (string, string, error) {
	return "", "", fmt.Errorf("%w: this binary is built without -tags cuda", errNoNVRTC)
}

func (d *Device) computeArch() (string, error) { return "", ErrNoCUDA }

func (d *Device) loadModule(string) (unsafe.Pointer, error) { return nil, ErrNoCUDA }

func (d *Device) moduleFunction(unsafe.Pointer, string) (unsafe.Pointer, error) {
	return nil, ErrNoCUDA
}

func (d *Device) launchUser(unsafe.Pointer, [3]int, [3]int, int, []uint64) error { return ErrNoCUDA }

func (d *Device) unloadModule(unsafe.Pointer) error { return ErrNoCUDA }
