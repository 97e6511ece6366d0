// Package kerneltest runs a gnnlab kernel on real ZeroMQ sockets for
// tests, and gives them a client that signs and verifies like a Jupyter
// frontend.
//
// Start binds the kernel on free tcp ports of 127.0.0.1, or on ipc://
// sockets under t.TempDir(), runs it in the test process and returns a
// Client connected to all five sockets. Its worker process is
// Options.WorkerCommand, typically a gnnlab binary built once in TestMain
// with Build. Every wait has a timeout.
package kerneltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/gnnlab/gnnlab/kernel"
	"github.com/gnnlab/gnnlab/kernel/internal/wire"
	"github.com/gnnlab/gnnlab/kernel/internal/zconn"
)

// Timeout bounds every wait of the client.
var Timeout = 30 * time.Second

// ErrTimeout is returned when an expected message does not arrive.
var ErrTimeout = errors.New("kerneltest: timeout")

// Options configure Start.
type Options struct {
	// Transport is "tcp" (default) or "ipc".
	Transport string
	// Key signs messages; empty means a random key. NoKey turns signing off.
	Key   string
	NoKey bool
	// WorkerCommand is the worker's argv, e.g. {gnnlabBinary, "worker"}.
	WorkerCommand []string
	// HistoryPath defaults to a file under t.TempDir().
	HistoryPath string
	// Interrupts is passed to the kernel (the command feeds it SIGINT).
	Interrupts <-chan os.Signal
	// Logf, when set, receives the kernel's log lines.
	Logf func(format string, args ...any)
	// MaxMessageSize is passed to the kernel.
	MaxMessageSize int64
	// Curve gives the connection a fresh CurveZMQ key pair: the kernel
	// and the client speak CURVE on every socket.
	Curve bool
}

// Build compiles the gnnlab command into dir and returns its path.
func Build(dir string) (string, error) {
	exe := filepath.Join(dir, "gnnlab")
	cmd := exec.Command("go", "build", "-o", exe, "github.com/gnnlab/gnnlab/cmd/gnnlab")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("kerneltest: build gnnlab: %w\n%s", err, out)
	}
	return exe, nil
}

// Message is a message the client received.
type Message struct {
	Channel  string
	MsgType  string
	MsgID    string
	ParentID string
	Content  map[string]any
	Metadata map[string]any // the message's metadata
	Buffers  [][]byte       // its binary buffers
}

// Client is a frontend connected to a kernel.
type Client struct {
	Conn    kernel.ConnectionInfo
	Session string

	t      testing.TB
	signer *wire.Signer
	socks  map[string]zmq4.Socket
	sendMu map[string]*sync.Mutex

	inbox   map[string]chan Message
	done    chan struct{} // closed when Run returned
	cancel  context.CancelFunc
	runErr  error
	kernelK *kernel.Kernel
	welcome *Message
	curve   *zconn.CurveKeys // the connection's keys, when it speaks CURVE
}

// Kernel returns the kernel under test.
func (c *Client) Kernel() *kernel.Kernel { return c.kernelK }

// Start runs a kernel and connects a client; both stop when the test ends.
func Start(t testing.TB, opts Options) *Client {
	t.Helper()
	dir := t.TempDir()
	conn := kernel.ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", SignatureScheme: "hmac-sha256"}
	if opts.Transport == "ipc" {
		// Unix socket paths are short (108 bytes): use a fresh short dir.
		d, err := os.MkdirTemp("", "gk")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		conn = kernel.ConnectionInfo{Transport: "ipc", IP: filepath.Join(d, "k"), SignatureScheme: "hmac-sha256",
			ShellPort: 1, ControlPort: 2, StdinPort: 3, IOPubPort: 4, HBPort: 5}
	}
	switch {
	case opts.NoKey:
	case opts.Key != "":
		conn.Key = opts.Key
	default:
		conn.Key = wire.NewID()
	}
	var curve *zconn.CurveKeys
	if opts.Curve {
		var err error
		if curve, conn.CurvePublicKey, conn.CurveSecretKey, err = zconn.NewCurveKeys(); err != nil {
			t.Fatal(err)
		}
	}
	hist := opts.HistoryPath
	if hist == "" {
		hist = filepath.Join(dir, "history.jsonl")
	}
	logger := log.New(io.Discard, "", 0)
	if opts.Logf != nil {
		logger = log.New(logfWriter(opts.Logf), "kernel: ", 0)
	}
	k, err := kernel.New(kernel.Options{Conn: conn, WorkerCommand: opts.WorkerCommand, HistoryPath: hist, Version: "test", Log: logger, Interrupts: opts.Interrupts, MaxMessageSize: opts.MaxMessageSize})
	if err != nil {
		t.Fatalf("kernel.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		Conn: k.Conn(), Session: wire.NewID(), t: t, kernelK: k,
		socks: map[string]zmq4.Socket{}, sendMu: map[string]*sync.Mutex{}, inbox: map[string]chan Message{},
		done: make(chan struct{}), cancel: cancel, curve: curve,
	}
	go func() {
		c.runErr = k.Run(ctx)
		close(c.done)
	}()
	c.signer, err = wire.NewSigner(conn.SignatureScheme, []byte(conn.Key))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.connect(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	c.waitForIOPub()
	return c
}

type logfWriter func(format string, args ...any)

func (f logfWriter) Write(p []byte) (int, error) {
	f("%s", p)
	return len(p), nil
}

func (c *Client) endpoint(port int) string {
	ep := fmt.Sprintf("tcp://%s:%d", c.Conn.IP, port)
	if c.Conn.Transport == "ipc" {
		ep = fmt.Sprintf("ipc://%s-%d", c.Conn.IP, port)
	}
	if c.curve != nil {
		// Dial through zconn's CURVE client.
		ep, _ = zconn.WithLimits(ep, zconn.Limits{Curve: c.curve})
	}
	return ep
}

func (c *Client) connect() error {
	ctx := context.Background()
	id := zmq4.WithID(zmq4.SocketIdentity(c.Session))
	quiet := zmq4.WithLogger(log.New(io.Discard, "", 0))
	socks := []struct {
		name string
		s    zmq4.Socket
		port int
	}{
		{"shell", zmq4.NewDealer(ctx, id, quiet), c.Conn.ShellPort},
		{"control", zmq4.NewDealer(ctx, id, quiet), c.Conn.ControlPort},
		{"stdin", zmq4.NewDealer(ctx, id, quiet), c.Conn.StdinPort},
		{"iopub", zmq4.NewSub(ctx, quiet), c.Conn.IOPubPort},
		{"hb", zmq4.NewReq(ctx, quiet), c.Conn.HBPort},
	}
	for _, s := range socks {
		if err := s.s.Dial(c.endpoint(s.port)); err != nil {
			return fmt.Errorf("kerneltest: dial %s: %w", s.name, err)
		}
		c.socks[s.name] = s.s
		c.sendMu[s.name] = new(sync.Mutex)
		if s.name == "hb" {
			continue
		}
		if s.name == "iopub" {
			if err := s.s.SetOption(zmq4.OptionSubscribe, ""); err != nil {
				return err
			}
		}
		ch := make(chan Message, 1024)
		c.inbox[s.name] = ch
		go c.read(s.name, s.s, ch)
	}
	return nil
}

func (c *Client) read(name string, s zmq4.Socket, ch chan Message) {
	for {
		zm, err := s.Recv()
		if err != nil {
			return
		}
		m, err := wire.Decode(zm.Frames, c.signer)
		if err != nil {
			c.t.Errorf("kerneltest: %s: kernel sent a message that does not verify: %v", name, err)
			continue
		}
		var content map[string]any
		if err := json.Unmarshal(m.Content, &content); err != nil {
			c.t.Errorf("kerneltest: %s: content %s: %v", name, m.Content, err)
			continue
		}
		if m.Header.Version != wire.Version || m.Header.Session == "" || m.Header.MsgID == "" {
			c.t.Errorf("kerneltest: %s: bad header %+v", name, m.Header)
		}
		// A test that stops reading leaves the inbox full: the reader
		// must not outlive the kernel blocked on it.
		select {
		case ch <- Message{Channel: name, MsgType: m.Header.MsgType, MsgID: m.Header.MsgID, ParentID: m.ParentHeader.MsgID, Content: content, Metadata: m.Metadata, Buffers: m.Buffers}:
		case <-c.done:
			return
		}
	}
}

// waitForIOPub sends kernel_info requests until iopub delivers, as
// jupyter_client does: a SUB socket misses what was published before it
// subscribed. The first message is the kernel's iopub_welcome (protocol
// 5.5), kept for Welcome.
func (c *Client) waitForIOPub() {
	c.t.Helper()
	deadline := time.Now().Add(Timeout)
	for time.Now().Before(deadline) {
		select {
		case m := <-c.inbox["iopub"]:
			if m.MsgType == "iopub_welcome" {
				c.welcome = &m
			}
			c.drainIOPub(100 * time.Millisecond)
			return
		default:
		}
		id := c.Send("shell", "kernel_info_request", map[string]any{})
		if _, err := c.Reply("shell", id); err != nil {
			c.t.Fatalf("kerneltest: kernel_info: %v", err)
		}
		select {
		case m := <-c.inbox["iopub"]:
			if m.MsgType == "iopub_welcome" {
				c.welcome = &m
			}
			c.drainIOPub(100 * time.Millisecond)
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
	c.t.Fatal("kerneltest: iopub never delivered a message")
}

func (c *Client) drainIOPub(quiet time.Duration) {
	for {
		select {
		case <-c.inbox["iopub"]:
		case <-time.After(quiet):
			return
		}
	}
}

func (c *Client) close() {
	for _, s := range c.socks {
		s.Close()
	}
	c.cancel()
	select {
	case <-c.done:
	case <-time.After(Timeout):
		c.t.Errorf("kerneltest: kernel did not stop within %v", Timeout)
	}
}

// Done is closed when the kernel's Run has returned.
func (c *Client) Done() <-chan struct{} { return c.done }

// Welcome returns the iopub_welcome the client's iopub socket received
// first on connecting, or nil when the first message was another.
func (c *Client) Welcome() *Message { return c.welcome }

// Header returns a request header for msgType from this client.
func (c *Client) Header(msgType string) wire.Header {
	h := wire.NewHeader(msgType, c.Session)
	h.Username = "test"
	return h
}

// Send sends a signed request on channel ("shell", "control", "stdin")
// and returns its msg_id.
func (c *Client) Send(channel, msgType string, content any) string {
	c.t.Helper()
	return c.SendTo(channel, "", msgType, content)
}

// SendTo is Send for the kernel subshell subshellID (its header's
// subshell_id); "" is the main shell.
func (c *Client) SendTo(channel, subshellID, msgType string, content any) string {
	c.t.Helper()
	h := c.Header(msgType)
	h.SubshellID = subshellID
	body, err := json.Marshal(content)
	if err != nil {
		c.t.Fatal(err)
	}
	frames, err := wire.Encode(&wire.Message{Header: h, Content: body}, c.signer)
	if err != nil {
		c.t.Fatal(err)
	}
	c.SendFrames(channel, frames)
	return h.MsgID
}

// SendFrames sends raw frames on channel, for forged or broken messages.
func (c *Client) SendFrames(channel string, frames [][]byte) {
	c.t.Helper()
	c.sendMu[channel].Lock()
	defer c.sendMu[channel].Unlock()
	if err := c.socks[channel].SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatalf("kerneltest: send on %s: %v", channel, err)
	}
}

// Encode signs m with the client's key, for building messages by hand.
func (c *Client) Encode(m *wire.Message) [][]byte {
	frames, err := wire.Encode(m, c.signer)
	if err != nil {
		c.t.Fatal(err)
	}
	return frames
}

// Reply waits for the message on channel whose parent is msgID; others
// that arrive first are dropped.
func (c *Client) Reply(channel, msgID string) (Message, error) {
	return c.ReplyWithin(channel, msgID, Timeout)
}

// ReplyWithin is Reply with its own timeout.
func (c *Client) ReplyWithin(channel, msgID string, d time.Duration) (Message, error) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case m := <-c.inbox[channel]:
			if m.ParentID == msgID {
				return m, nil
			}
		case <-timer.C:
			return Message{}, fmt.Errorf("%w: no %s reply to %s within %v", ErrTimeout, channel, msgID, d)
		}
	}
}

// IOPubUntilIdle returns the iopub messages that are children of msgID,
// up to and including its idle status.
func (c *Client) IOPubUntilIdle(msgID string) ([]Message, error) {
	var out []Message
	timer := time.NewTimer(Timeout)
	defer timer.Stop()
	for {
		select {
		case m := <-c.inbox["iopub"]:
			if m.ParentID != msgID {
				continue
			}
			out = append(out, m)
			if m.MsgType == "status" && m.Content["execution_state"] == "idle" {
				return out, nil
			}
		case <-timer.C:
			return out, fmt.Errorf("%w: no idle status for %s within %v", ErrTimeout, msgID, Timeout)
		}
	}
}

// Execute runs code with content overrides (e.g. "silent": true) and
// returns the execute_reply and the iopub messages of the request.
func (c *Client) Execute(code string, extra map[string]any) (Message, []Message) {
	c.t.Helper()
	content := map[string]any{"code": code, "silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true}
	for k, v := range extra {
		content[k] = v
	}
	id := c.Send("shell", "execute_request", content)
	reply, err := c.Reply("shell", id)
	if err != nil {
		c.t.Fatalf("execute %q: %v", code, err)
	}
	out, err := c.IOPubUntilIdle(id)
	if err != nil {
		c.t.Fatalf("execute %q: %v", code, err)
	}
	return reply, out
}

// Ping sends a heartbeat and waits for its echo.
func (c *Client) Ping(payload string) (string, error) {
	hb := c.socks["hb"]
	if err := hb.Send(zmq4.NewMsgString(payload)); err != nil {
		return "", err
	}
	got := make(chan string, 1)
	go func() {
		m, err := hb.Recv()
		if err == nil {
			got <- string(m.Bytes())
		}
	}()
	select {
	case s := <-got:
		return s, nil
	case <-time.After(Timeout):
		return "", fmt.Errorf("%w: no heartbeat echo", ErrTimeout)
	}
}

// Inbox returns the channel of messages received on channel.
func (c *Client) Inbox(channel string) <-chan Message { return c.inbox[channel] }

// Filter returns the messages of msgType among msgs.
func Filter(msgs []Message, msgType string) []Message {
	var out []Message
	for _, m := range msgs {
		if m.MsgType == msgType {
			out = append(out, m)
		}
	}
	return out
}

// StreamText concatenates the text of the stream messages named name.
func StreamText(msgs []Message, name string) string {
	s := ""
	for _, m := range Filter(msgs, "stream") {
		if m.Content["name"] == name {
			s += fmt.Sprint(m.Content["text"])
		}
	}
	return s
}
