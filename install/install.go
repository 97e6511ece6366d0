package install

//go:generate sh -c "cd kernelspec && go run genlogo.go"

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

//go:embed kernelspec/logo-32x32.png kernelspec/logo-64x64.png
var logos embed.FS

// Name is the kernel's name in Jupyter.
const Name = "gnnlab"

// GatewayName is the name of the kernelspec for Jupyter Enterprise
// Gateway (NewGatewaySpec).
const GatewayName = "gnnlab_distributed"

// ErrNoVirtualEnv is returned for SysPrefix outside a virtual environment.
var ErrNoVirtualEnv = errors.New("install: --sys-prefix needs an active virtual environment ($VIRTUAL_ENV is not set)")

// Spec is the content of kernel.json.
type Spec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode"`
	Env           map[string]string `json:"env,omitempty"`
	Metadata      map[string]any    `json:"metadata,omitempty"`
	// KernelProtocolVersion: kernel_protocol_version (protocol 5.5).
	KernelProtocolVersion string `json:"kernel_protocol_version,omitempty"`
}

// KernelProtocolVersion is the Jupyter messaging protocol version the
// kernel speaks, advertised in kernel.json (kernel_protocol_version) so
// that a launcher knows it before the kernel starts; kernel.ProtocolVersion
// must agree (a test in package kernel checks).
const KernelProtocolVersion = "5.5"

// NewSpec returns the kernelspec that starts exe as a kernel.
func NewSpec(exe string) Spec {
	return Spec{
		Argv:          []string{exe, "kernel", "--connection-file", "{connection_file}"},
		DisplayName:   "Go (gnnlab)",
		Language:      "go",
		InterruptMode: "message",
		// JupyterLab offers its debugger for kernels whose spec says so.
		// supported_encryption: the kernel speaks CurveZMQ when the
		// connection file has curve keys (jupyter_client 8.10's
		// transport_encryption "auto" or "required" provisions them).
		Metadata:              map[string]any{"debugger": true, "supported_encryption": []string{"curve"}},
		KernelProtocolVersion: KernelProtocolVersion,
	}
}

// NewGatewaySpec returns the kernelspec that Jupyter Enterprise Gateway
// starts exe by: its DistributedProcessProxy runs the kernel on one of the
// gateway's remote hosts (over ssh, or directly when the host is the
// gateway's own), and the kernel reports its ports to the gateway's
// response address (gnnlab kernel --response-address) instead of reading a
// connection file.
func NewGatewaySpec(exe string) Spec {
	return Spec{
		Argv: []string{exe, "kernel",
			"--response-address", "{response_address}",
			"--kernel-id", "{kernel_id}",
			"--public-key", "{public_key}",
			"--port-range", "{port_range}",
		},
		DisplayName:           "Go (gnnlab, Enterprise Gateway)",
		Language:              "go",
		InterruptMode:         "message",
		KernelProtocolVersion: KernelProtocolVersion,
		Metadata: map[string]any{
			"process_proxy": map[string]any{
				"class_name": "enterprise_gateway.services.processproxies.distributed.DistributedProcessProxy",
			},
		},
	}
}

// Where says which kernels directory to install into; at most one field
// is set, and none means User.
type Where struct {
	User      bool
	SysPrefix bool
	Prefix    string
}

// KernelsDir returns the directory that holds kernelspecs for w.
func KernelsDir(w Where) (string, error) {
	switch {
	case w.Prefix != "":
		p, err := filepath.Abs(w.Prefix)
		if err != nil {
			return "", fmt.Errorf("install: %w", err)
		}
		return filepath.Join(p, "share", "jupyter", "kernels"), nil
	case w.SysPrefix:
		venv := os.Getenv("VIRTUAL_ENV")
		if venv == "" {
			return "", ErrNoVirtualEnv
		}
		return filepath.Join(venv, "share", "jupyter", "kernels"), nil
	}
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return filepath.Join(d, "kernels"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Jupyter", "kernels"), nil
	}
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" {
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, "jupyter", "kernels"), nil
}

// Write installs the kernelspec for exe (made absolute) into kernelsDir
// and returns the kernelspec directory.
func Write(kernelsDir, exe string) (string, error) {
	return write(kernelsDir, Name, exe, NewSpec)
}

// WriteGateway installs the Enterprise Gateway kernelspec (GatewayName,
// NewGatewaySpec) for exe (made absolute) into kernelsDir and returns the
// kernelspec directory.
func WriteGateway(kernelsDir, exe string) (string, error) {
	return write(kernelsDir, GatewayName, exe, NewGatewaySpec)
}

func write(kernelsDir, name, exe string, newSpec func(string) Spec) (string, error) {
	exe, err := filepath.Abs(exe)
	if err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	dir := filepath.Join(kernelsDir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	spec, err := json.MarshalIndent(newSpec(exe), "", "  ")
	if err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kernel.json"), append(spec, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	for _, name := range []string{"logo-32x32.png", "logo-64x64.png"} {
		data, err := logos.ReadFile("kernelspec/" + name)
		if err != nil {
			return "", fmt.Errorf("install: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return "", fmt.Errorf("install: %w", err)
		}
	}
	return dir, nil
}
