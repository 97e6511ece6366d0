package kernel

import (
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/gnnlab/gnnlab/kernel/internal/wire"
	"github.com/gnnlab/gnnlab/kernel/internal/zconn"
)

// channel is one of the kernel's sockets. zmq4 sockets are not meant for
// concurrent sends, so every send goes through mu.
type channel struct {
	name string
	sock zmq4.Socket
	k    *Kernel
	mu   sync.Mutex
}

// listen binds the socket to endpoint through zconn's buffered transport,
// so that each message goes out in one write, and a peer keeps to lim.
func (c *channel) listen(endpoint string, lim zconn.Limits) (port int, err error) {
	ep, err := zconn.WithLimits(endpoint, lim)
	if err != nil {
		return 0, fmt.Errorf("kernel: %w", err)
	}
	if err := c.sock.Listen(ep); err != nil {
		return 0, fmt.Errorf("kernel: %s socket: %w", c.name, err)
	}
	if a, ok := c.sock.Addr().(*net.TCPAddr); ok {
		return a.Port, nil
	}
	return 0, nil
}

// send signs and sends a message of msgType with content, answering
// parent (which may be the zero Header), to identities.
func (c *channel) send(identities [][]byte, parent wire.Header, msgType string, content any) error {
	return c.sendMessage(identities, parent, msgType, content, nil, nil)
}

// sendMessage is send with the message's metadata and binary buffers.
func (c *channel) sendMessage(identities [][]byte, parent wire.Header, msgType string, content any, metadata map[string]any, buffers [][]byte) error {
	body, err := json.Marshal(content)
	if err != nil {
		return fmt.Errorf("kernel: encode %s: %w", msgType, err)
	}
	m := &wire.Message{
		Identities:   identities,
		Header:       wire.NewHeader(msgType, c.k.session),
		ParentHeader: parent,
		Metadata:     metadata,
		Content:      body,
		Buffers:      buffers,
	}
	frames, err := wire.Encode(m, c.k.signer)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.sock.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		return fmt.Errorf("kernel: send %s on %s: %w", msgType, c.name, err)
	}
	return nil
}

// request is a verified message received on a channel.
type request struct {
	ch      *channel
	msg     *wire.Message
	arrived time.Time // when the kernel read it
}

func (r request) msgType() string { return r.msg.Header.MsgType }

// reply answers r on the socket it came from.
func (k *Kernel) reply(r request, msgType string, content any) {
	if err := r.ch.send(r.msg.Identities, r.msg.Header, msgType, content); err != nil {
		k.log.Print(err)
	}
}

// publish sends a message on iopub as a child of parent.
func (k *Kernel) publish(parent wire.Header, msgType string, content any) {
	topic := [][]byte{[]byte("kernel." + k.session + "." + msgType)}
	if err := k.iopub.send(topic, parent, msgType, content); err != nil {
		k.log.Print(err)
	}
}

func (k *Kernel) status(parent wire.Header, state string) {
	k.publish(parent, "status", map[string]string{"execution_state": state})
}
