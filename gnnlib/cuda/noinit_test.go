//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// helperEnv marks the child process of TestNoDeviceKeepsRunning.
const helperEnv = "GNNLAB_CUDA_HELPER"

// TestCuInitInterposed checks that gorgonia.org/cu's initialiser called
// cuInit through cuinit_cuda.c's interposer rather than the driver's
// directly: otherwise a failing cuInit exits the process. It needs the
// driver library, not a GPU.
func TestCuInitInterposed(t *testing.T) {
	if !cuInitInterposed() {
		t.Fatal("cuInitInterposed() = false: gorgonia.org/cu's call to cuInit bypassed cuinit_cuda.c, so a machine without a GPU exits at start-up")
	}
}

// TestNoDeviceKeepsRunning runs TestNoDeviceHelper in a child process of
// this test binary with every GPU hidden (CUDA_VISIBLE_DEVICES empty), so
// that the driver's cuInit fails with CUDA_ERROR_NO_DEVICE. The child must
// survive gorgonia.org/cu's initialiser, get errors wrapping ErrNoDevice
// from Open, Default and tensor.Device, and exit 0. On a machine with a
// GPU hiding it is what makes cuInit fail, with CUDA_ERROR_NO_DEVICE; on
// one without (CI), cuInit fails in the parent too, and the child must
// still get the errors and survive.
func TestNoDeviceKeepsRunning(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		t.Skip("in the child process")
	}
	_, err := Default()
	gpu := err == nil
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoDeviceHelper$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "CUDA_VISIBLE_DEVICES=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child with CUDA_VISIBLE_DEVICES=\"\": %v, want exit 0; output:\n%s", err, out)
	}
	cause := "noinit: Open(0): gnnlib/cuda: no CUDA device: cuInit failed with "
	if gpu {
		cause += "CUDA_ERROR_NO_DEVICE"
	}
	for _, want := range []string{
		cause,
		"noinit: Default(): gnnlib/cuda: no CUDA device",
		"noinit: tensor.Device(\"cuda\"): gnnlib/cuda: no CUDA device",
		"noinit: CPU sum = 6",
		"--- PASS: TestNoDeviceHelper",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q; output:\n%s", want, out)
		}
	}
}

// TestNoDeviceHelper is the child process of TestNoDeviceKeepsRunning (and
// skips otherwise): it expects no usable device and prints what Open,
// Default and tensor.Device returned, then computes on the CPU.
func TestNoDeviceHelper(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("run by TestNoDeviceKeepsRunning")
	}
	check := func(call string, err error) {
		fmt.Printf("noinit: %s: %v\n", call, err)
		if !errors.Is(err, ErrNoDevice) {
			t.Errorf("%s = %v, want an error wrapping ErrNoDevice", call, err)
		}
	}
	d, err := Open(0)
	if err == nil {
		d.Close()
	}
	check("Open(0)", err)
	_, err = Default()
	check("Default()", err)
	b, err := tensor.Device("cuda")
	check(`tensor.Device("cuda")`, err)
	if b != nil {
		t.Errorf(`tensor.Device("cuda") = %#v with its error, want a nil Backend`, b)
	}
	x := tensor.FromSlice([]float32{1, 2, 3}, 3)
	fmt.Printf("noinit: CPU sum = %v\n", x.Sum().Item())
}
