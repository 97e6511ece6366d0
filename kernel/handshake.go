package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/gnnlab/gnnlab/kernel/internal/wire"
)

// The kernel handshake pattern (JEP 66): the launcher opens a
// registration socket (ZeroMQ REP) and gives the kernel its address; the
// kernel binds its five sockets to ports of its own choosing, connects a
// REQ socket to the registration socket and sends them there; the
// launcher acknowledges and connects. No port is chosen by one process
// and bound by another, so none can be taken in between.
//
// The JEP leaves the messages open; gnnlab uses those of Posit's kernel
// supervisor (kallichore), the one implementation in use: a signed
// Jupyter message "handshake_request" whose content holds the five ports
// (and the transport, ip and signature scheme), answered by a signed
// "handshake_reply" with status "ok" or "error".

// DefaultRegistrationTimeout is how long Register waits for the launcher's
// acknowledgement; a kernel that gets none shuts itself down (JEP 66).
const DefaultRegistrationTimeout = 30 * time.Second

// ErrRegistrationRefused is returned by Register when the launcher
// answers with status "error".
var ErrRegistrationRefused = errors.New("kernel: the launcher refused the registration")

// handshakeRequest is the content of a handshake_request.
type handshakeRequest struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	IOPubPort       int    `json:"iopub_port"`
	StdinPort       int    `json:"stdin_port"`
	ControlPort     int    `json:"control_port"`
	HBPort          int    `json:"hb_port"`
	SignatureScheme string `json:"signature_scheme"`
	KernelName      string `json:"kernel_name,omitempty"`
}

// handshakeReply is the content of a handshake_reply.
type handshakeReply struct {
	Status string `json:"status"`
	Error  string `json:"error"`
}

// RegistrationEndpoint returns the ZeroMQ address of the registration
// socket that ci names (its registration_port, on registration_ip for a
// registration file), or "" when it names none.
func (ci ConnectionInfo) RegistrationEndpoint() string {
	if ci.RegistrationPort == 0 {
		return ""
	}
	if ci.IsRegistrationFile() {
		return fmt.Sprintf("%s://%s:%d", ci.Transport, ci.RegistrationIP, ci.RegistrationPort)
	}
	return ci.endpoint(ci.RegistrationPort)
}

// Register reports the kernel's ports to the registration socket at
// endpoint (a ZeroMQ address such as tcp://127.0.0.1:5555) and waits up
// to timeout (0 means DefaultRegistrationTimeout) for the acknowledgement.
// Call it after New, which has bound the ports, and before Run. The
// request and the reply are signed with the connection's key.
//
// For a registration file (protocol 5.6) it speaks that handshake
// instead (register56).
func (k *Kernel) Register(ctx context.Context, endpoint string, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = DefaultRegistrationTimeout
	}
	if k.conn.IsRegistrationFile() {
		return k.register56(ctx, endpoint, timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sock := zmq4.NewReq(ctx, zmq4.WithDialerRetry(100*time.Millisecond), zmq4.WithDialerMaxRetries(int(timeout/(100*time.Millisecond))))
	defer sock.Close()
	if err := sock.Dial(endpoint); err != nil {
		return fmt.Errorf("kernel: registration socket %s: %w", endpoint, err)
	}
	c := k.conn
	body, err := json.Marshal(handshakeRequest{
		Transport: c.Transport, IP: c.IP,
		ShellPort: c.ShellPort, IOPubPort: c.IOPubPort, StdinPort: c.StdinPort,
		ControlPort: c.ControlPort, HBPort: c.HBPort,
		SignatureScheme: c.SignatureScheme, KernelName: c.KernelName,
	})
	if err != nil {
		return fmt.Errorf("kernel: encode handshake_request: %w", err)
	}
	req := &wire.Message{Header: wire.NewHeader("handshake_request", k.session), Content: body}
	frames, err := wire.Encode(req, k.signer)
	if err != nil {
		return err
	}
	if err := sock.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		return fmt.Errorf("kernel: send handshake_request to %s: %w", endpoint, err)
	}
	reply, late, err := recvWithin(ctx, sock)
	if late {
		return fmt.Errorf("kernel: no handshake_reply from %s within %s: %w", endpoint, timeout, err)
	}
	if err != nil {
		return fmt.Errorf("kernel: receive handshake_reply from %s: %w", endpoint, err)
	}
	m, err := wire.Decode(reply.Frames, k.signer)
	if err != nil {
		return fmt.Errorf("kernel: handshake_reply from %s: %w", endpoint, err)
	}
	if m.Header.MsgType != "handshake_reply" {
		return fmt.Errorf("kernel: registration socket %s answered %q, want handshake_reply", endpoint, m.Header.MsgType)
	}
	var rep handshakeReply
	if err := m.DecodeContent(&rep); err != nil {
		return err
	}
	if rep.Status != "ok" {
		return fmt.Errorf("%w (status %q): %s", ErrRegistrationRefused, rep.Status, rep.Error)
	}
	return nil
}

// WriteConnectionFile writes ci to path (mode 0600: it holds the key),
// replacing the file in one rename so that a reader never sees half of it.
// The registration port is left out: the file then describes a running
// kernel, as JEP 66 asks, for other clients to connect to.
func WriteConnectionFile(path string, ci ConnectionInfo) error {
	ci.RegistrationPort = 0
	data, err := json.MarshalIndent(ci, "", "  ")
	if err != nil {
		return fmt.Errorf("kernel: encode connection file: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".gnnlab-connection-*.json")
	if err != nil {
		return fmt.Errorf("kernel: write connection file: %w", err)
	}
	defer os.Remove(f.Name()) // fails harmlessly once renamed
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("kernel: write connection file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("kernel: write connection file: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("kernel: write connection file: %w", err)
	}
	return nil
}

// NewKey returns a fresh random signing key for a connection, for a
// kernel that makes its own connection information (Enterprise Gateway).
func NewKey() string { return wire.NewID() }

// Close releases what New took, for a kernel that will not Run (its
// registration failed); Run releases it itself.
func (k *Kernel) Close() {
	k.cancel()
	k.closeSockets()
	k.hist.close()
}

// recvWithin receives one message from sock, a socket made with ctx (so
// its Recv ends when ctx does). late reports that ctx ended first; err is
// then ctx's error.
func recvWithin(ctx context.Context, sock zmq4.Socket) (msg zmq4.Msg, late bool, err error) {
	type result struct {
		msg zmq4.Msg
		err error
	}
	got := make(chan result, 1)
	go func() {
		m, err := sock.Recv()
		got <- result{m, err}
	}()
	select {
	case r := <-got:
		return r.msg, false, r.err
	case <-ctx.Done():
		return zmq4.Msg{}, true, ctx.Err()
	}
}
