package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/gnnlab/gnnlab/kernel/internal/wire"
)

// The start-up handshake of protocol 5.6 (jupyter_client's "Kernel startup
// handshake"): the kernel is given a registration file (kernel_id,
// transport, registration_ip, registration_port, key, signature_scheme)
// instead of a connection file; it binds its five sockets to ports of its
// own choosing, connects a DEALER socket to the registration address and
// sends a minimal signed message (no header, parent or metadata) whose
// content is the kernel_id and the five ports; the registration service
// answers with a signed minimal ACK, and the handshake is over. It is the
// JEP 66 pattern (handshake.go) with messages of its own.

// registration56 is the content the kernel sends. The specification
// gives the ports as strings.
type registration56 struct {
	KernelID    string `json:"kernel_id"`
	ControlPort string `json:"control_port"`
	ShellPort   string `json:"shell_port"`
	StdinPort   string `json:"stdin_port"`
	IOPubPort   string `json:"iopub_port"`
	HBPort      string `json:"hb_port"`
}

func (k *Kernel) register56(ctx context.Context, endpoint string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sock := zmq4.NewDealer(ctx, zmq4.WithDialerRetry(100*time.Millisecond), zmq4.WithDialerMaxRetries(int(timeout/(100*time.Millisecond))))
	defer sock.Close()
	if err := sock.Dial(endpoint); err != nil {
		return fmt.Errorf("kernel: registration socket %s: %w", endpoint, err)
	}
	c := k.conn
	itoa := strconv.Itoa
	body, err := json.Marshal(registration56{
		KernelID:    c.KernelID,
		ControlPort: itoa(c.ControlPort), ShellPort: itoa(c.ShellPort), StdinPort: itoa(c.StdinPort),
		IOPubPort: itoa(c.IOPubPort), HBPort: itoa(c.HBPort),
	})
	if err != nil {
		return fmt.Errorf("kernel: encode registration: %w", err)
	}
	if err := sock.SendMulti(zmq4.NewMsgFrom(wire.EncodeContent(body, k.signer)...)); err != nil {
		return fmt.Errorf("kernel: send registration to %s: %w", endpoint, err)
	}
	ack, late, err := recvWithin(ctx, sock) // handshake.go
	if late {
		return fmt.Errorf("kernel: no registration ACK from %s within %s: %w", endpoint, timeout, err)
	}
	if err != nil {
		return fmt.Errorf("kernel: receive registration ACK from %s: %w", endpoint, err)
	}
	// The ACK's content is the service's to choose; its signature is not.
	if _, err := wire.DecodeContentOnly(ack.Frames, k.signer); err != nil {
		return fmt.Errorf("kernel: registration ACK from %s: %w", endpoint, err)
	}
	return nil
}
