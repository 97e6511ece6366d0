package comm

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Message types of Msg.Type.
const (
	TypeOpen  = "open"  // comm_open
	TypeMsg   = "msg"   // comm_msg
	TypeClose = "close" // comm_close
)

// Msg is one comm message, from the frontend (Deliver) or to it (a
// Transport's Send).
type Msg struct {
	Type   string // TypeOpen, TypeMsg or TypeClose
	ID     string // the comm's id
	Target string // the target name, on TypeOpen
	// Data is the content's data; Metadata the message's metadata
	// (ipywidgets puts the protocol version there on comm_open).
	Data     json.RawMessage
	Metadata map[string]any
	// Buffers are the message's binary buffers.
	Buffers [][]byte
	// MsgID is, on a message from the frontend, the msg_id of its header.
	// On a message to the frontend it names the frontend message that
	// this one answers (ipywidgets' echo_update must be its child); empty
	// publishes it as other output of the moment is.
	MsgID string
}

// Transport carries messages to the frontend. The host installs one with
// SetTransport.
type Transport interface {
	// Send sends m to the frontend.
	Send(m Msg) error
	// Parent returns the msg_id under which output shown now reaches the
	// frontend: that of the frontend message whose handler calls it (a
	// widget callback, also while a cell runs), else that of the running
	// cell; empty when neither is known.
	Parent() string
}

// ErrNoFrontend is returned by Open and Send when no host installed a
// Transport: the code runs outside a notebook (a plain go test, a
// terminal REPL) and no frontend can show a comm.
var ErrNoFrontend = errors.New("comm: no frontend is connected (run the cell in a Jupyter notebook)")

// Target is called when the frontend opens a comm of its target name, with
// the new comm and the opening message. It sets the comm's handlers;
// returning an error refuses the comm, which is then closed.
type Target func(c *Comm, open Msg) error

// Comm is an open comm.
type Comm struct {
	id, target string

	mu             sync.Mutex
	onMsg, onClose func(Msg)
	closed         bool
}

var (
	mu        sync.Mutex
	transport Transport
	targets   = map[string]Target{}
	open      = map[string]*Comm{}
)

// SetTransport installs t as the way to the frontend; nil removes it.
func SetTransport(t Transport) {
	mu.Lock()
	transport = t
	mu.Unlock()
}

func current() Transport {
	mu.Lock()
	defer mu.Unlock()
	return transport
}

// Connected reports whether a frontend can receive comms.
func Connected() bool { return current() != nil }

// Parent returns the transport's Parent, or "" without a transport.
func Parent() string {
	if t := current(); t != nil {
		return t.Parent()
	}
	return ""
}

// RegisterTarget makes comms that the frontend opens with target name
// reach t, replacing an earlier registration.
func RegisterTarget(name string, t Target) {
	mu.Lock()
	targets[name] = t
	mu.Unlock()
}

// Open opens a comm of target from the session's side, sending data and
// metadata with the comm_open message.
func Open(target string, data any, metadata map[string]any, buffers [][]byte) (*Comm, error) {
	t := current()
	if t == nil {
		return nil, ErrNoFrontend
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("comm: encode open data: %w", err)
	}
	c := &Comm{id: newID(), target: target}
	mu.Lock()
	open[c.id] = c
	mu.Unlock()
	if err := t.Send(Msg{Type: TypeOpen, ID: c.id, Target: target, Data: raw, Metadata: metadata, Buffers: buffers}); err != nil {
		mu.Lock()
		delete(open, c.id)
		mu.Unlock()
		return nil, err
	}
	return c, nil
}

// ID returns the comm's id.
func (c *Comm) ID() string { return c.id }

// Target returns the comm's target name.
func (c *Comm) Target() string { return c.target }

// OnMsg sets the handler of the frontend's comm_msg messages.
func (c *Comm) OnMsg(f func(Msg)) {
	c.mu.Lock()
	c.onMsg = f
	c.mu.Unlock()
}

// OnClose sets the handler of the frontend's comm_close.
func (c *Comm) OnClose(f func(Msg)) {
	c.mu.Lock()
	c.onClose = f
	c.mu.Unlock()
}

// Send sends data to the frontend side of the comm. replyTo, when not
// empty, is the msg_id of the frontend message this one answers.
func (c *Comm) Send(data any, buffers [][]byte, replyTo string) error {
	t := current()
	if t == nil {
		return ErrNoFrontend
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return fmt.Errorf("comm: send on closed comm %s", c.id)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("comm: encode message: %w", err)
	}
	return t.Send(Msg{Type: TypeMsg, ID: c.id, Data: raw, Buffers: buffers, MsgID: replyTo})
}

// Close closes the comm from the session's side.
func (c *Comm) Close() error {
	if !c.markClosed() {
		return nil
	}
	t := current()
	if t == nil {
		return ErrNoFrontend
	}
	return t.Send(Msg{Type: TypeClose, ID: c.id, Data: json.RawMessage("{}")})
}

func (c *Comm) markClosed() bool {
	mu.Lock()
	delete(open, c.id)
	mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	was := c.closed
	c.closed = true
	return !was
}

// Deliver passes a message from the frontend to its comm: TypeOpen to the
// registered target (an unknown target, or one that refuses, gets the comm
// closed again), TypeMsg and TypeClose to the comm's handlers. The host
// calls it on one goroutine, in the order the messages came, so handlers
// never run concurrently with each other; they may run while a cell runs.
// A message for a comm that is not open is an error.
func Deliver(m Msg) error {
	switch m.Type {
	case TypeOpen:
		mu.Lock()
		t := targets[m.Target]
		mu.Unlock()
		c := &Comm{id: m.ID, target: m.Target}
		if t == nil {
			c.closed = true
			closeRefused(c)
			return fmt.Errorf("comm: no target %q; comm %s closed", m.Target, m.ID)
		}
		mu.Lock()
		open[c.id] = c
		mu.Unlock()
		if err := t(c, m); err != nil {
			c.markClosed()
			closeRefused(c)
			return fmt.Errorf("comm: target %q refused comm %s: %w", m.Target, m.ID, err)
		}
		return nil
	case TypeMsg, TypeClose:
		mu.Lock()
		c := open[m.ID]
		mu.Unlock()
		if c == nil {
			return fmt.Errorf("comm: %s for comm %s, which is not open", m.Type, m.ID)
		}
		c.mu.Lock()
		f := c.onMsg
		if m.Type == TypeClose {
			f = c.onClose
		}
		c.mu.Unlock()
		if m.Type == TypeClose {
			c.markClosed()
		}
		if f != nil {
			f(m)
		}
		return nil
	}
	return fmt.Errorf("comm: unknown message type %q", m.Type)
}

func closeRefused(c *Comm) {
	if t := current(); t != nil {
		_ = t.Send(Msg{Type: TypeClose, ID: c.id, Data: json.RawMessage("{}")})
	}
}

// Reset forgets every open comm, as a fresh session would; registered
// targets stay. Tests use it between cases.
func Reset() {
	mu.Lock()
	open = map[string]*Comm{}
	mu.Unlock()
}

// newID returns a fresh comm id: 32 hex digits, like ipykernel's uuid4 hex.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
