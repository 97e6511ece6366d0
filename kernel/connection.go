package kernel

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/gnnlab/gnnlab/kernel/internal/zconn"
)

// ConnectionInfo is the content of a Jupyter connection file.
type ConnectionInfo struct {
	Transport       string `json:"transport"` // "tcp" or "ipc"
	IP              string `json:"ip"`        // address (tcp) or path prefix (ipc)
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	StdinPort       int    `json:"stdin_port"`
	IOPubPort       int    `json:"iopub_port"`
	HBPort          int    `json:"hb_port"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
	KernelName      string `json:"kernel_name,omitempty"`
	// RegistrationPort, when set, is the port of the launcher's
	// registration socket on IP (JEP 66, see Kernel.Register): the
	// kernel picks its own ports for those the file leaves at 0.
	RegistrationPort int `json:"registration_port,omitempty"`
	// CurvePublicKey and CurveSecretKey, when set, are the kernel's
	// CurveZMQ key pair (Z85, as jupyter_client 8.10 writes them): every
	// socket then speaks CURVE as its server and refuses peers without
	// CURVE or without the public key.
	// KernelID and RegistrationIP come in a registration file (protocol
	// 5.6's start-up handshake, Kernel.Register) in place of the ports:
	// the kernel binds its own and reports them, with KernelID, to the
	// registration socket at RegistrationIP:RegistrationPort.
	KernelID       string `json:"kernel_id,omitempty"`
	RegistrationIP string `json:"registration_ip,omitempty"`
	CurvePublicKey string `json:"curve_publickey,omitempty"`
	CurveSecretKey string `json:"curve_secretkey,omitempty"`
}

// curveKeys parses the CurveZMQ keys; nil when there are none.
func (ci ConnectionInfo) curveKeys() (*zconn.CurveKeys, error) {
	if ci.CurvePublicKey == "" && ci.CurveSecretKey == "" {
		return nil, nil
	}
	if ci.CurvePublicKey == "" || ci.CurveSecretKey == "" {
		return nil, fmt.Errorf("kernel: curve_publickey and curve_secretkey go together; the connection has only one")
	}
	k, err := zconn.ParseCurveKeys(ci.CurvePublicKey, ci.CurveSecretKey)
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	return k, nil
}

// ReadConnectionFile reads and checks a connection file.
func ReadConnectionFile(path string) (ConnectionInfo, error) {
	var ci ConnectionInfo
	data, err := os.ReadFile(path)
	if err != nil {
		return ci, fmt.Errorf("kernel: read connection file: %w", err)
	}
	if err := json.Unmarshal(data, &ci); err != nil {
		return ci, fmt.Errorf("kernel: parse connection file %s: %w", path, err)
	}
	if ci.Transport == "" {
		ci.Transport = "tcp"
	}
	if ci.Transport != "tcp" && ci.Transport != "ipc" {
		return ci, fmt.Errorf("kernel: connection file %s: unknown transport %q", path, ci.Transport)
	}
	if ci.IP == "" {
		// A registration file names no address to bind: bind where the
		// launcher listens, which reaches it.
		ci.IP = ci.RegistrationIP
	}
	if ci.IP == "" {
		ci.IP = "127.0.0.1"
	}
	if ci.IsRegistrationFile() && (ci.RegistrationPort == 0 || ci.KernelID == "") {
		return ci, fmt.Errorf("kernel: registration file %s: want registration_port and kernel_id beside registration_ip", path)
	}
	if _, err := ci.curveKeys(); err != nil {
		return ci, fmt.Errorf("%w (connection file %s)", err, path)
	}
	return ci, nil
}

// IsRegistrationFile reports whether ci came from a registration file
// (protocol 5.6) rather than a connection file.
func (ci ConnectionInfo) IsRegistrationFile() bool { return ci.RegistrationIP != "" }

// endpoint returns the ZeroMQ address of port. Jupyter's ipc transport
// names a socket file "<ip>-<port>".
func (ci ConnectionInfo) endpoint(port int) string {
	if ci.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", ci.IP, port)
	}
	ip := ci.IP
	if ip == "*" {
		ip = "0.0.0.0"
	}
	return fmt.Sprintf("tcp://%s:%d", ip, port)
}
