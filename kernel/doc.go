// Package kernel is the Jupyter side of gnnlab: it speaks the Jupyter
// messaging protocol (version 5.5, ProtocolVersion, and the start-up
// handshake of 5.6) over ZeroMQ and relays cells to the worker process
// that runs the Go session. It never runs user code.
//
// # Sockets
//
// New binds the shell, control and stdin ROUTER sockets, the iopub XPUB
// socket and the heartbeat REP socket of a connection file (tcp or ipc);
// Run serves them. Each new iopub subscriber gets an iopub_welcome naming
// its subscription, sent to it alone before anything published after the
// subscription (welcome.go; zmq4's XPUB keeps subscriptions to itself, so
// the connection layer, kernel/internal/zconn, reports them). Every message is verified (HMAC, in constant time)
// before it is handled; one with a bad or missing signature, or one that
// does not parse, is logged and dropped; so is one whose signature was
// seen among the last 65,536 (a replay), as ipykernel does. A request of a
// known type whose content does not decode gets an error reply. Replies go out on the socket the
// request came in on, between a busy and an idle status on iopub. The
// heartbeat echoes on its own goroutine.
//
// # Encryption
//
// A connection file with curve_publickey and curve_secretkey (Z85, as
// jupyter_client 8.10's transport_encryption writes them) makes every
// socket speak CurveZMQ (RFC 26) as its server; a peer without CURVE or
// without the public key is dropped in the handshake. zmq4 has no
// encrypting mechanism (its Security interface cannot change a frame's
// length), so zconn runs CURVE below zmq4.
//
// # Who picks the ports
//
// A tcp port of 0 in Options.Conn makes New bind a free one; Conn reports
// the ports bound. Register then reports them to a launcher's registration
// socket (the handshake pattern of JEP 66, or, given a registration
// file, the start-up handshake of protocol 5.6), and ReportToGateway to Jupyter
// Enterprise Gateway's response address, encrypted as the gateway's own
// kernel launchers do; either way no port is chosen by one process and
// bound by another.
//
// # Hostile and slow peers
//
// zmq4 v0.17 trusts its peers, so every socket listens through the
// transport of kernel/internal/zconn, which wraps each connection (no fork
// or replace of zmq4). It follows the ZMTP stream a peer sends and drops
// the connection, before zmq4 allocates, on a message over
// Options.MaxMessageSize (1 GiB by default; gnnlab kernel
// --max-message-size) or on bytes zmq4 would panic on (bad READY
// metadata, reserved flags); a peer has 10 s to complete its handshake.
// Each connection sends from a queue of its own: a peer that does not read
// (an iopub subscriber, a shell client that never collects its replies)
// has new messages dropped once 1000 messages or 256 MiB wait, as at
// ZeroMQ's high-water mark, and never holds up the other clients.
//
// # Execution
//
// Execute requests run one at a time in arrival order; everything else on
// shell is answered at once, so kernel_info never waits for a cell or for
// the worker to start. Completion, inspection and is_complete go to the
// worker when it is idle and get an empty (or "unknown") answer while a
// cell runs. After a failed cell with stop_on_error, the execute requests
// queued behind it are answered "aborted".
//
// Kernel subshells (JEP 91) are made, listed and deleted on control; a
// shell request whose header has a subshell_id goes to that subshell.
// Each subshell has its own execute queue (stop_on_error aborts only its
// own), but the session runs one cell at a time: a subshell's cell waits,
// busy, for the cell that runs, whichever shell sent it. Everything else
// is answered at once on every subshell, as on the main shell.
//
// The kernel drives the worker through package client, as gnnlab repl and
// gnnlab run do, and relays what it returns: output of the worker becomes
// stream messages as it arrives; displays, results and errors follow the
// output printed before them, their bundles relayed as the worker rendered
// them (workerproto.Bundle). An interrupt (interrupt_request on control,
// or Options.Interrupts) goes to client.Interrupt: the worker cancels the
// running cell by its request id, and a cell still running after
// client.Grace loses its worker, which is replaced. When the worker dies
// (stack overflow, a panic in a goroutine, os.Exit, killed) the cell gets
// one error naming the cause and a fresh worker takes over with the same
// connection and execution count. The worker is told each cell's
// execution count, so that error positions read cell[N] for In [N] on a
// fresh worker too.
//
// # Life cycle and front ends
//
// WithParent ends the kernel (and so its worker) when the process named
// by JPY_PARENT_PID dies, as ipykernel's parent poller does. A cell that
// is only exit or quit runs nothing and answers with the ask_exit payload
// (keepkernel false), on which jupyter console quits and shuts the kernel
// down. usage_request (jupyter-resource-usage) is answered as ipykernel 7
// answers it: memory and CPU of the kernel with its worker, and of the
// host, from /proc.
//
// # Magics
//
// The frontend magics run in package client: %replay re-runs on the
// fresh worker the cells that had succeeded on the worker that died,
// %restart starts a fresh session in place and %history lists the cells
// run (silent ones and those not stored left out); other magics go to the
// session. A cell "name?" (or "name??") pages the documentation of name,
// IPython's way, through the execute_reply payload.
//
// # History and comms
//
// Every stored execution is appended to a JSON-lines file (HistoryFile);
// each kernel start is a new session, and history_request supports tail,
// range and search. An input or output over 1 MiB is cut in the file with
// a marker (the session keeps it whole); a line the loader cannot read is
// skipped with a log line, and the entries after it still load.
//
// Comms are kept in a registry, which comm_info_request lists.
// RegisterCommTarget adds a target that the kernel answers itself. A
// comm_open for any other target goes to the Go session, as do the
// comms the session opens (viz/widgets: every widget is a comm of target
// jupyter.widget): the kernel publishes the worker's comm messages
// (workerproto.EvComm) on iopub and relays the frontend's comm_msg and
// comm_close on them to the worker (client.Comm), at once, also while a
// cell runs; the session closes a comm whose target it does not have. A
// relayed message is busy until the session's handlers are done, and what
// they publish is its child, so a widget Output capturing under its
// msg_id receives a callback's output. What the callback prints is its
// child too, also while a cell runs (the worker sends it as
// workerproto.EvStream), and what the cell prints meanwhile stays the
// cell's. When the worker is replaced (a crash,
// %restart) the session's comms are closed on the frontend.
//
// # Debugger
//
// kernel_info says debugger (and supported_features ["debugger"]), and the
// kernelspec's metadata too, which is what JupyterLab reads. A
// debug_request on the control channel is relayed to the worker
// (client.Debug), whose debugger answers it also while a cell runs or is
// stopped; its content is the DAP response, sent back as debug_reply. The
// worker's debug events (stopped, continued) are published on iopub as
// debug_event, children of the running cell.
//
// BUG(gnnlab): shutdown_request with restart true ends the process like
// ipykernel does (the frontend starts a new one); %restart restarts the
// worker in place.
//
// BUG(gnnlab): while a widget callback runs during a cell, what a
// goroutine that the callback started, or compiled code it calls,
// prints goes to the cell: the worker tells the callback's prints from
// the cell's by the goroutine that delivers comm messages.
//
// BUG(gnnlab): history keeps the text/plain of a cell's execute_result as
// its output; displays and streams are not kept.
package kernel
