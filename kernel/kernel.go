package kernel

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/gnnlab/gnnlab/interp/client"
	"github.com/gnnlab/gnnlab/interp/workerproto"
	"github.com/gnnlab/gnnlab/kernel/internal/wire"
	"github.com/gnnlab/gnnlab/kernel/internal/zconn"
)

// Options configure a Kernel.
type Options struct {
	// Conn says where to listen and how to sign. A tcp port of 0 picks a
	// free port; Kernel.Conn reports the ports chosen.
	Conn ConnectionInfo
	// WorkerCommand is the argv of the worker process; empty means this
	// executable with the argument "worker".
	WorkerCommand []string
	// WorkerEnv is added to the worker's environment.
	WorkerEnv []string
	// HistoryPath is the history file; empty means HistoryFile().
	HistoryPath string
	// Version is reported as implementation_version.
	Version string
	// Interrupts interrupts the running cell on each receive (the
	// command wires SIGINT here).
	Interrupts <-chan os.Signal
	// Log receives diagnostics; nil means stderr.
	Log *log.Logger
	// MaxMessageSize bounds the bytes of one message a client may send on
	// any socket (checked from the frame headers, before anything is
	// allocated); 0 means DefaultMaxMessageSize.
	MaxMessageSize int64
}

// DefaultMaxMessageSize is the default of Options.MaxMessageSize.
const DefaultMaxMessageSize = zconn.DefaultMaxMessage

// Kernel is a running Jupyter kernel.
type Kernel struct {
	opts    Options
	conn    ConnectionInfo
	log     *log.Logger
	signer  *wire.Signer
	session string

	shell, control, stdin, iopub *channel
	hb                           zmq4.Socket

	client  *client.Client
	hist    *history
	comms   commRegistry
	replays replays // signatures seen, shared by all sockets

	ctx    context.Context
	cancel context.CancelFunc

	// main holds the main shell's execute requests in arrival order;
	// subshells (subshell.go) have queues of their own. cellMu lets one
	// cell at a time run in the session, whichever queue it came from.
	main      *shellQueue
	subshells subshells
	cellMu    sync.Mutex

	// commQ holds comm messages in arrival order for relayComms, so that
	// a slow widget callback holds up neither the other shell requests
	// nor the cells (a runaway one can be ended with %restart).
	commQ chan request

	mu         sync.Mutex
	execCount  int
	lastParent wire.Header // parent of output that arrives outside a cell
	running    bool        // a cell is executing (lastParent is its header)

	usageStats usageSampler // usage_request (usage.go)
}

// New binds the kernel's sockets; Run serves them.
func New(opts Options) (*Kernel, error) {
	if opts.Log == nil {
		opts.Log = log.New(os.Stderr, "gnnlab kernel: ", log.LstdFlags)
	}
	signer, err := wire.NewSigner(opts.Conn.SignatureScheme, []byte(opts.Conn.Key))
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	curve, err := opts.Conn.curveKeys()
	if err != nil {
		return nil, err
	}
	if opts.Conn.Transport == "" {
		opts.Conn.Transport = "tcp"
	}
	if opts.Conn.IP == "" {
		opts.Conn.IP = "127.0.0.1"
	}
	ctx, cancel := context.WithCancel(context.Background())
	k := &Kernel{
		opts:    opts,
		conn:    opts.Conn,
		log:     opts.Log,
		signer:  signer,
		session: wire.NewID(),
		ctx:     ctx,
		cancel:  cancel,
		main:    newShellQueue(""),
		commQ:   make(chan request, 1024),
	}
	k.comms.init()
	zlog := log.New(logWriter{k.log}, "zmq4: ", 0)
	// The sockets outlive k.ctx by a little, so that the replies to a
	// shutdown request still go out; closeSockets ends them.
	ctx = context.Background()
	mk := func(name string, s zmq4.Socket) *channel { return &channel{name: name, sock: s, k: k} }
	k.shell = mk("shell", zmq4.NewRouter(ctx, zmq4.WithLogger(zlog)))
	k.control = mk("control", zmq4.NewRouter(ctx, zmq4.WithLogger(zlog)))
	k.stdin = mk("stdin", zmq4.NewRouter(ctx, zmq4.WithLogger(zlog)))
	// IOPub is XPUB (protocol 5.5): each new subscriber gets an
	// iopub_welcome (welcome.go) before anything published after it.
	k.iopub = mk("iopub", zmq4.NewXPub(ctx, zmq4.WithLogger(zlog)))
	k.hb = zmq4.NewRep(ctx, zmq4.WithLogger(zlog))
	hb := &channel{name: "heartbeat", sock: k.hb, k: k}
	for _, b := range []struct {
		c    *channel
		port *int
	}{
		{k.shell, &k.conn.ShellPort}, {k.control, &k.conn.ControlPort}, {k.stdin, &k.conn.StdinPort},
		{k.iopub, &k.conn.IOPubPort}, {hb, &k.conn.HBPort},
	} {
		lim := zconn.Limits{MaxMessage: opts.MaxMessageSize, Curve: curve}
		if b.c == k.iopub {
			lim.Welcome = (*welcomer)(k)
		}
		port, err := b.c.listen(k.conn.endpoint(*b.port), lim)
		if err != nil {
			k.closeSockets()
			cancel()
			return nil, err
		}
		if k.conn.Transport == "tcp" {
			*b.port = port
		}
	}
	hp := opts.HistoryPath
	if hp == "" {
		hp = HistoryFile()
	}
	k.hist = openHistory(hp, k.log)
	k.client = client.New(client.Config{
		Command: opts.WorkerCommand,
		// The kernel relays comms: the session may open them (widgets).
		// It speaks the debug protocol: the session is debuggable.
		Env:    append(append([]string(nil), opts.WorkerEnv...), workerproto.CommsEnv+"=1", workerproto.DebugEnv+"=1"),
		Output: k.onOutput,
		Orphan: k.onOrphan,
		// The session's comms died with its worker: close them on the page.
		Replaced: k.closeSessionComms,
		Log:      k.log,
	})
	return k, nil
}

// Conn returns the connection information with the ports in use.
func (k *Kernel) Conn() ConnectionInfo { return k.conn }

// Run serves until a shutdown request or until ctx is done.
func (k *Kernel) Run(ctx context.Context) error {
	defer k.cancel()
	// The worker starts in the background: kernel_info does not wait.
	if err := k.client.Start(); err != nil {
		k.log.Print(err)
	}
	k.status(wire.Header{}, "starting")
	go k.heartbeat()
	go k.readLoop(k.shell, k.dispatchShell)
	go k.readLoop(k.control, k.dispatchControl)
	go k.readLoop(k.stdin, k.dispatchStdin)
	go k.executor(k.main)
	go k.relayComms()
	for {
		select {
		case <-ctx.Done():
			k.stop()
			return ctx.Err()
		case <-k.ctx.Done():
			k.stop()
			return nil
		case <-k.opts.Interrupts:
			k.client.Interrupt()
		}
	}
}

func (k *Kernel) stop() {
	k.client.Close()
	k.cancel()
	// zmq4's PUB socket sends from a queue of its own: give the last
	// status messages a moment to leave before closing.
	time.Sleep(50 * time.Millisecond)
	k.closeSockets()
	k.hist.close()
}

func (k *Kernel) closeSockets() {
	for _, s := range []zmq4.Socket{k.shell.sock, k.control.sock, k.stdin.sock, k.iopub.sock, k.hb} {
		if s != nil {
			s.Close()
		}
	}
}

// heartbeat echoes every ping; it has its own goroutine so that a busy
// kernel still looks alive.
func (k *Kernel) heartbeat() {
	for {
		msg, err := k.hb.Recv()
		if err != nil {
			if k.ctx.Err() != nil {
				return
			}
			continue // a malformed ping: zmq4 drops it
		}
		if err := k.hb.Send(msg); err != nil && k.ctx.Err() == nil {
			k.log.Printf("heartbeat: %v", err)
		}
	}
}

// readLoop receives, verifies and dispatches the messages of one socket.
// A message that fails verification or parsing is logged and dropped.
func (k *Kernel) readLoop(c *channel, dispatch func(request)) {
	for {
		zm, err := c.sock.Recv()
		if err != nil {
			if k.ctx.Err() != nil {
				return
			}
			k.log.Printf("%s: receive: %v", c.name, err)
			continue
		}
		m, err := wire.Decode(zm.Frames, k.signer)
		if err != nil {
			if errors.Is(err, wire.ErrBadSignature) {
				k.log.Printf("%s: dropped a message with an invalid signature", c.name)
			} else {
				k.log.Printf("%s: dropped a malformed message: %v", c.name, err)
			}
			continue
		}
		if !k.replays.fresh(m.Signature) {
			k.log.Printf("%s: dropped a replayed message (signature seen before)", c.name)
			continue
		}
		dispatch(request{ch: c, msg: m, arrived: time.Now()})
	}
}

// dispatchShell queues execute requests and comm messages and answers the
// others at once, so kernel_info, completion and history never wait
// behind a cell or a widget callback. An execute request goes to the
// queue of its subshell (subshell_id in its header); a request for a
// subshell that does not exist gets an error reply.
func (k *Kernel) dispatchShell(r request) {
	q := k.main
	if id := r.msg.Header.SubshellID; id != "" {
		if q = k.subshells.get(id); q == nil {
			k.unknownSubshell(r)
			return
		}
	}
	switch r.msgType() {
	case "comm_open", "comm_msg", "comm_close":
		select {
		case k.commQ <- r:
		case <-k.ctx.Done():
		}
		return
	}
	if r.msgType() == "execute_request" {
		if !q.push(r) {
			k.unknownSubshell(r)
		}
		return
	}
	k.handle(r)
}

func (k *Kernel) dispatchControl(r request) {
	if r.msgType() == "execute_request" {
		k.log.Print("control: ignored an execute_request")
		return
	}
	k.handle(r)
}

func (k *Kernel) dispatchStdin(r request) {
	if r.msgType() != "input_reply" {
		k.log.Printf("stdin: ignored %s", r.msgType())
		return
	}
	var c struct {
		Value string `json:"value"`
	}
	if err := r.msg.DecodeContent(&c); err != nil {
		k.log.Print(err)
		return
	}
	// Jupyter has no end-of-input reply: an empty one is the end of
	// standard input (io.EOF in the cell), so that reading to the end
	// finishes.
	reply := func() error { return k.client.Reply(c.Value) }
	if c.Value == "" {
		reply = k.client.ReplyEOF
	}
	if err := reply(); err != nil {
		k.log.Print(err)
	}
}

// handle answers a request other than execute, between busy and idle.
func (k *Kernel) handle(r request) {
	k.status(r.msg.Header, "busy")
	stop := false
	switch r.msgType() {
	case "kernel_info_request":
		k.reply(r, "kernel_info_reply", k.kernelInfo())
	case "complete_request":
		k.complete(r)
	case "inspect_request":
		k.inspect(r)
	case "is_complete_request":
		k.isComplete(r)
	case "history_request":
		k.history(r)
	case "comm_info_request":
		k.commInfo(r)
	case "comm_open":
		k.commOpen(r)
	case "comm_msg":
		k.commMsg(r)
	case "comm_close":
		k.commClose(r)
	case "usage_request":
		k.usage(r)
	case "debug_request":
		k.debugRequest(r) // debug.go
	case "create_subshell_request", "delete_subshell_request", "list_subshell_request":
		if r.ch != k.control {
			k.log.Printf("%s: ignored %s (it belongs on control)", r.ch.name, r.msgType())
			break
		}
		k.subshellRequest(r) // subshell.go
	case "interrupt_request":
		k.client.Interrupt()
		k.reply(r, "interrupt_reply", map[string]string{"status": "ok"})
	case "shutdown_request":
		k.shutdown(r)
		stop = true
	default:
		k.log.Printf("%s: ignored unknown message type %q", r.ch.name, r.msgType())
	}
	k.status(r.msg.Header, "idle")
	if stop {
		k.cancel()
	}
}

// shutdown answers; handle then ends Run. With restart true the frontend starts
// a new kernel process (jupyter_client waits for this one to exit), so the
// kernel exits either way, as ipykernel does.
func (k *Kernel) shutdown(r request) {
	var c struct {
		Restart bool `json:"restart"`
	}
	if err := r.msg.DecodeContent(&c); err != nil {
		k.log.Print(err)
	}
	k.reply(r, "shutdown_reply", map[string]any{"status": "ok", "restart": c.Restart})
}

// logWriter sends zmq4's diagnostics to the kernel's log.
type logWriter struct{ l *log.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.Print(string(p))
	return len(p), nil
}
