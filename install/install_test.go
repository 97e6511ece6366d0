package install

import (
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestWrite(t *testing.T) {
	prefix := t.TempDir()
	kd, err := KernelsDir(Where{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := Write(kd, "/opt/bin/gnnlab")
	if err != nil {
		t.Fatalf("Write() = %v", err)
	}
	if want := filepath.Join(prefix, "share", "jupyter", "kernels", "gnnlab"); dir != want {
		t.Errorf("Write() dir = %q, want %q", dir, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec Spec
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	want := []string{"/opt/bin/gnnlab", "kernel", "--connection-file", "{connection_file}"}
	if !reflect.DeepEqual(spec.Argv, want) || spec.InterruptMode != "message" || spec.Language != "go" || spec.DisplayName != "Go (gnnlab)" {
		t.Errorf("kernel.json = %+v, want argv %q, interrupt_mode message, language go", spec, want)
	}
	for name, size := range map[string]int{"logo-32x32.png": 32, "logo-64x64.png": 64} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != size || img.Bounds().Dy() != size {
			t.Errorf("%s: %v, %v, want a %dx%d PNG", name, img.Bounds(), err, size, size)
		}
	}
}

func TestKernelsDir(t *testing.T) {
	t.Setenv("VIRTUAL_ENV", "")
	if _, err := KernelsDir(Where{SysPrefix: true}); !errors.Is(err, ErrNoVirtualEnv) {
		t.Errorf("KernelsDir(sys-prefix) without a venv = %v, want %v", err, ErrNoVirtualEnv)
	}
	t.Setenv("VIRTUAL_ENV", "/venv")
	if got, _ := KernelsDir(Where{SysPrefix: true}); got != "/venv/share/jupyter/kernels" {
		t.Errorf("KernelsDir(sys-prefix) = %q, want /venv/share/jupyter/kernels", got)
	}
	t.Setenv("JUPYTER_DATA_DIR", "/data")
	if got, _ := KernelsDir(Where{User: true}); got != "/data/kernels" {
		t.Errorf("KernelsDir(user) = %q, want /data/kernels", got)
	}
}

func TestWriteGateway(t *testing.T) {
	kd := t.TempDir()
	dir, err := WriteGateway(kd, "/opt/bin/gnnlab")
	if err != nil {
		t.Fatalf("WriteGateway() = %v", err)
	}
	if want := filepath.Join(kd, GatewayName); dir != want {
		t.Errorf("WriteGateway() dir = %q, want %q", dir, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Spec
		Metadata struct {
			ProcessProxy struct {
				ClassName string `json:"class_name"`
			} `json:"process_proxy"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	want := []string{"/opt/bin/gnnlab", "kernel", "--response-address", "{response_address}", "--kernel-id", "{kernel_id}",
		"--public-key", "{public_key}", "--port-range", "{port_range}"}
	if !reflect.DeepEqual(spec.Argv, want) || spec.InterruptMode != "message" || spec.Language != "go" {
		t.Errorf("kernel.json = %+v, want argv %q, interrupt_mode message, language go", spec.Spec, want)
	}
	if got := spec.Metadata.ProcessProxy.ClassName; got != "enterprise_gateway.services.processproxies.distributed.DistributedProcessProxy" {
		t.Errorf("process_proxy class_name = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "logo-64x64.png")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(kd, Name)); !os.IsNotExist(err) {
		t.Errorf("WriteGateway touched the %s kernelspec: %v", Name, err)
	}
}
