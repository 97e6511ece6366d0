package dist

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"
)

// DefaultTimeout bounds the waits of the TCP bootstrap and of each
// collective call of a TCP communicator when TCPOptions.Timeout is zero.
const DefaultTimeout = 2 * time.Minute

// TCPOptions configure ConnectTCP and ExchangeID.
type TCPOptions struct {
	// Timeout bounds the wait for the other ranks at the rendezvous (rank
	// 0 waiting for the others to connect, the others retrying a refused
	// connection while rank 0 starts) and in each collective call. Zero
	// means DefaultTimeout.
	Timeout time.Duration
}

func (o TCPOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// magic starts every bootstrap message, so that a stray connection to the
// port is refused clearly.
const magic = "gnnlab-dist/1"

type hello struct {
	Magic string
	Rank  int
	Size  int
	// Port is the port of the rank's ring listener (ConnectTCP), 0 for
	// ExchangeID.
	Port int
}

type welcome struct {
	Error string
	// Addrs holds each rank's ring address as rank 0 reached it.
	Addrs []string
	// ID is rank 0's payload (an NCCL unique id).
	ID []byte
}

// maxMsg bounds a bootstrap message, so that a stray connection cannot
// make a rank allocate much.
const maxMsg = 1 << 20

// writeMsg sends v as JSON after its length (4 bytes, little-endian):
// framed, so that the reader consumes exactly the message and the ring's
// data that follows on the same connection stays unread.
func writeMsg(c net.Conn, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	msg := binary.LittleEndian.AppendUint32(nil, uint32(len(b)))
	_, err = c.Write(append(msg, b...))
	return err
}

// readMsg reads a message of writeMsg into v.
func readMsg(c net.Conn, v any) error {
	var n [4]byte
	if _, err := io.ReadFull(c, n[:]); err != nil {
		return err
	}
	size := binary.LittleEndian.Uint32(n[:])
	if size > maxMsg {
		return fmt.Errorf("dist: bootstrap message of %d bytes", size)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(c, b); err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// rendezvous is the TCP bootstrap: rank 0 listens on addr, the others
// connect to it (retrying while it is not up yet) and say who they are;
// rank 0 answers each with the table of the ranks' ring addresses and its
// payload. port is this rank's ring listener port (0: none).
func rendezvous(addr string, rank, size, port int, payload []byte, o TCPOptions) (addrs []string, id []byte, err error) {
	if size < 1 || rank < 0 || rank >= size {
		return nil, nil, fmt.Errorf("dist: rank %d of %d ranks: %w", rank, size, ErrMismatch)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, fmt.Errorf("dist: rendezvous address %q: %w", addr, err)
	}
	deadline := time.Now().Add(o.timeout())
	if rank == 0 {
		return serveRendezvous(addr, host, size, port, payload, deadline)
	}
	conn, err := dialRetry(addr, rank, deadline)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	conn.SetDeadline(deadline)
	if err := writeMsg(conn, hello{magic, rank, size, port}); err != nil {
		return nil, nil, netErr(fmt.Sprintf("rank %d: rendezvous with rank 0 at %s", rank, addr), err)
	}
	var w welcome
	if err := readMsg(conn, &w); err != nil {
		return nil, nil, netErr(fmt.Sprintf("rank %d: waiting for rank 0 at %s to hear from all %d ranks", rank, addr, size), err)
	}
	if w.Error != "" {
		return nil, nil, fmt.Errorf("dist: rank %d: rank 0 refused the group: %s: %w", rank, w.Error, ErrMismatch)
	}
	if len(w.Addrs) != size {
		return nil, nil, fmt.Errorf("dist: rank %d: rank 0 sent %d addresses for %d ranks: %w", rank, len(w.Addrs), size, ErrMismatch)
	}
	if w.Addrs[0] != "" { // rank 0 sent its ring port: it listens on the host we dialed
		w.Addrs[0] = net.JoinHostPort(host, w.Addrs[0])
	}
	return w.Addrs, w.ID, nil
}

func serveRendezvous(addr, host string, size, port int, payload []byte, deadline time.Time) ([]string, []byte, error) {
	addrs := make([]string, size)
	if port != 0 {
		addrs[0] = strconv.Itoa(port) // completed by each rank with the host it dialed
	}
	if size == 1 {
		if port != 0 {
			addrs[0] = net.JoinHostPort(host, addrs[0])
		}
		return addrs, payload, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("dist: rank 0: listen for the other ranks on %s: %w", addr, err)
	}
	defer ln.Close()
	ln.(*net.TCPListener).SetDeadline(deadline)
	conns := make([]net.Conn, size)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	refuse := ""
	for got := 1; got < size; {
		c, err := ln.Accept()
		if err != nil {
			return nil, nil, netErr(fmt.Sprintf("rank 0: waiting on %s for %d more of %d ranks", addr, size-got, size), err)
		}
		c.SetDeadline(deadline)
		var h hello
		if err := readMsg(c, &h); err != nil || h.Magic != magic {
			c.Close() // not one of ours: keep waiting
			continue
		}
		switch {
		case h.Size != size:
			refuse = fmt.Sprintf("rank %d was started for %d ranks, rank 0 for %d", h.Rank, h.Size, size)
		case h.Rank <= 0 || h.Rank >= size:
			refuse = fmt.Sprintf("rank %d is out of range for %d ranks", h.Rank, size)
		case conns[h.Rank] != nil:
			refuse = fmt.Sprintf("rank %d connected twice", h.Rank)
		}
		if refuse != "" {
			writeMsg(c, welcome{Error: refuse})
			c.Close()
			break
		}
		conns[h.Rank] = c
		if h.Port != 0 {
			ip := c.RemoteAddr().(*net.TCPAddr).IP
			addrs[h.Rank] = net.JoinHostPort(ip.String(), strconv.Itoa(h.Port))
		}
		got++
	}
	for r, c := range conns {
		if c == nil {
			continue
		}
		w := welcome{Error: refuse, Addrs: addrs, ID: payload}
		if err := writeMsg(c, w); err != nil && refuse == "" {
			return nil, nil, netErr(fmt.Sprintf("rank 0: send the group to rank %d", r), err)
		}
	}
	if refuse != "" {
		return nil, nil, fmt.Errorf("dist: rank 0: %s: %w", refuse, ErrMismatch)
	}
	if port != 0 {
		addrs[0] = net.JoinHostPort(host, addrs[0])
	}
	return addrs, payload, nil
}

// dialRetry connects to rank 0, retrying a refused connection (rank 0 not
// listening yet) until the deadline.
func dialRetry(addr string, rank int, deadline time.Time) (net.Conn, error) {
	wait := 20 * time.Millisecond
	for {
		d := net.Dialer{Deadline: deadline}
		c, err := d.Dial("tcp", addr)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, syscall.ECONNREFUSED) || time.Now().Add(wait).After(deadline) {
			what := fmt.Sprintf("rank %d: connect to rank 0 at %s", rank, addr)
			if errors.Is(err, syscall.ECONNREFUSED) {
				return nil, fmt.Errorf("dist: %s: connection refused until the timeout (is rank 0 running, on that address?): %w", what, ErrTimeout)
			}
			return nil, netErr(what, err)
		}
		time.Sleep(wait)
		wait = min(2*wait, time.Second)
	}
}

// netErr wraps a network error, adding ErrTimeout to a timeout and
// ErrClosed to a connection the peer closed.
func netErr(what string, err error) error {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("dist: %s: %w (%w)", what, ErrTimeout, err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return fmt.Errorf("dist: %s: the peer closed the connection: %w (%w)", what, ErrClosed, err)
	}
	return fmt.Errorf("dist: %s: %w", what, err)
}

// ExchangeID sends rank 0's id (an NCCL unique id) to every rank of a
// group through the TCP bootstrap of ConnectTCP: rank 0 listens on addr
// ("host:port") until the size-1 others have connected, and each rank
// returns rank 0's id. The other ranks' id argument is ignored.
func ExchangeID(addr string, rank, size int, id []byte, o TCPOptions) ([]byte, error) {
	_, got, err := rendezvous(addr, rank, size, 0, id, o)
	return got, err
}

// ConnectTCP joins rank rank of a group of size processes (or goroutines)
// that all-reduce over TCP: rank 0 listens on addr ("host:port", reachable
// by the others) for the rendezvous; every rank then opens a ring listener
// on its own host and connects to the next rank's. All-reduce is the ring
// algorithm of NewLocal with each step's chunk sent to the next rank while
// the previous rank's is received; Broadcast passes the buffer around the
// ring in pieces; Barrier is a one-value all-reduce. Every message carries
// its call's kind and length, so ranks that disagree fail with
// ErrMismatch, and a rank that waits longer than the timeout fails with
// ErrTimeout; after either the communicator is unusable.
func ConnectTCP(addr string, rank, size int, o TCPOptions) (Communicator, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("dist: rendezvous address %q: %w", addr, err)
	}
	c := &tcpComm{rank: rank, size: size, timeout: o.timeout()}
	if size == 1 {
		return c, nil
	}
	if rank != 0 {
		host = "" // all interfaces: rank 0 tells the others the address it saw
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("dist: rank %d: ring listener: %w", rank, err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	addrs, _, err := rendezvous(addr, rank, size, port, nil, o)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(o.timeout())
	next := addrs[(rank+1)%size]
	type dialed struct {
		c   net.Conn
		err error
	}
	dc := make(chan dialed, 1)
	go func() {
		c, err := dialRetry(next, rank, deadline)
		if err == nil {
			c.SetDeadline(deadline)
			err = writeMsg(c, hello{magic, rank, size, 0})
		}
		dc <- dialed{c, err}
	}()
	ln.(*net.TCPListener).SetDeadline(deadline)
	prev := (rank + size - 1) % size
	for c.prev == nil {
		conn, err := ln.Accept()
		if err != nil {
			d := <-dc
			if d.c != nil {
				d.c.Close()
			}
			return nil, netErr(fmt.Sprintf("rank %d: waiting for rank %d to connect", rank, prev), err)
		}
		conn.SetDeadline(deadline)
		var h hello
		if err := readMsg(conn, &h); err != nil || h.Magic != magic || h.Rank != prev || h.Size != size {
			conn.Close()
			continue
		}
		c.prev = conn
	}
	d := <-dc
	if d.err != nil {
		c.prev.Close()
		if d.c != nil {
			d.c.Close()
		}
		return nil, netErr(fmt.Sprintf("rank %d: connect to rank %d at %s", rank, (rank+1)%size, next), d.err)
	}
	c.next = d.c
	for _, conn := range []net.Conn{c.prev, c.next} {
		conn.SetDeadline(time.Time{})
		conn.(*net.TCPConn).SetNoDelay(true)
	}
	c.r = bufio.NewReaderSize(c.prev, 1<<16)
	return c, nil
}

// tcpComm is a rank of a TCP ring.
type tcpComm struct {
	rank, size int
	timeout    time.Duration
	prev, next net.Conn // from rank-1, to rank+1
	r          *bufio.Reader
	sendBuf    []byte
	recvBuf    []byte
	recvF      []float32
	// err is the error that made the communicator unusable.
	err error
}

func (c *tcpComm) Rank() int { return c.rank }
func (c *tcpComm) Size() int { return c.size }

func (c *tcpComm) String() string { return fmt.Sprintf("dist.TCP(rank %d of %d)", c.rank, c.size) }

// header precedes each message: the call's kind, its argument and the
// buffer's length, which the receiver checks against its own call.
const headerBytes = 16

func (c *tcpComm) begin(kind byte, arg, n int) error {
	if c.err != nil {
		return c.err
	}
	if c.size > 1 {
		d := time.Now().Add(c.timeout)
		c.prev.SetDeadline(d)
		c.next.SetDeadline(d)
	}
	return nil
}

// fail makes the communicator unusable with err.
func (c *tcpComm) fail(err error) error {
	if c.err == nil {
		c.err = err
	}
	return err
}

func kindName(k byte) string {
	switch k {
	case 'A':
		return "all-reduce"
	case 'B':
		return "broadcast"
	}
	return string(k)
}

// send writes one message of vals to the next rank.
func (c *tcpComm) send(kind byte, arg, n int, vals []float32) error {
	need := headerBytes + 4*len(vals)
	if cap(c.sendBuf) < need {
		c.sendBuf = make([]byte, need)
	}
	b := c.sendBuf[:need]
	b[0] = kind
	binary.LittleEndian.PutUint32(b[4:], uint32(int32(arg)))
	binary.LittleEndian.PutUint64(b[8:], uint64(n))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[headerBytes+4*i:], math.Float32bits(v))
	}
	if _, err := c.next.Write(b); err != nil {
		return netErr(fmt.Sprintf("rank %d: %s: send to rank %d", c.rank, kindName(kind), (c.rank+1)%c.size), err)
	}
	return nil
}

// recv reads one message of count values from the previous rank, checks
// that it belongs to the same call and returns the values, in a scratch
// slice that the next recv reuses.
func (c *tcpComm) recv(kind byte, arg, n int, count int) ([]float32, error) {
	need := headerBytes + 4*count
	if cap(c.recvBuf) < need {
		c.recvBuf = make([]byte, need)
	}
	b := c.recvBuf[:need]
	from := (c.rank + c.size - 1) % c.size
	if _, err := io.ReadFull(c.r, b[:headerBytes]); err != nil {
		return nil, netErr(fmt.Sprintf("rank %d: %s: receive from rank %d", c.rank, kindName(kind), from), err)
	}
	gk, ga, gn := b[0], int(int32(binary.LittleEndian.Uint32(b[4:]))), int(binary.LittleEndian.Uint64(b[8:]))
	if gk != kind || ga != arg || gn != n {
		return nil, fmt.Errorf("dist: rank %d made %s(%d) of %d values, rank %d %s(%d) of %d: %w",
			c.rank, kindName(kind), arg, n, from, kindName(gk), ga, gn, ErrMismatch)
	}
	if _, err := io.ReadFull(c.r, b[headerBytes:]); err != nil {
		return nil, netErr(fmt.Sprintf("rank %d: %s: receive from rank %d", c.rank, kindName(kind), from), err)
	}
	if cap(c.recvF) < count {
		c.recvF = make([]float32, count)
	}
	f := c.recvF[:count]
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[headerBytes+4*i:]))
	}
	return f, nil
}

// exchange sends out to the next rank while receiving count values from
// the previous one.
func (c *tcpComm) exchange(kind byte, arg, n int, out []float32, count int) ([]float32, error) {
	errc := make(chan error, 1)
	go func() { errc <- c.send(kind, arg, n, out) }()
	in, rerr := c.recv(kind, arg, n, count)
	serr := <-errc
	if rerr != nil {
		return nil, rerr
	}
	return in, serr
}

func (c *tcpComm) AllReduce(buf []float32, op Op) error {
	if err := checkOp(op); err != nil {
		return err
	}
	if err := c.begin('A', int(op), len(buf)); err != nil {
		return err
	}
	n, r := c.size, c.rank
	if n == 1 {
		finish(buf, op, n)
		return nil
	}
	// Reduce-scatter: at step s send chunk r-s, receive chunk r-1-s and
	// add it; rank r ends with the whole sum of chunk r+1.
	for s := 0; s < n-1; s++ {
		slo, shi := chunk(len(buf), n, (r-s+n)%n)
		rlo, rhi := chunk(len(buf), n, (r-1-s+2*n)%n)
		in, err := c.exchange('A', int(op), len(buf), buf[slo:shi], rhi-rlo)
		if err != nil {
			return c.fail(err)
		}
		dst := buf[rlo:rhi]
		for i := range dst {
			dst[i] += in[i]
		}
	}
	lo, hi := chunk(len(buf), n, (r+1)%n)
	finish(buf[lo:hi], op, n)
	// All-gather: at step s send chunk r+1-s, receive chunk r-s.
	for s := 0; s < n-1; s++ {
		slo, shi := chunk(len(buf), n, (r+1-s+n)%n)
		rlo, rhi := chunk(len(buf), n, (r-s+n)%n)
		in, err := c.exchange('A', int(op), len(buf), buf[slo:shi], rhi-rlo)
		if err != nil {
			return c.fail(err)
		}
		copy(buf[rlo:rhi], in)
	}
	return nil
}

// broadcastPiece is the number of values Broadcast forwards at a time.
const broadcastPiece = 1 << 18

func (c *tcpComm) Broadcast(buf []float32, root int) error {
	if err := checkRoot(root, c.size); err != nil {
		return err
	}
	if err := c.begin('B', root, len(buf)); err != nil {
		return err
	}
	if c.size == 1 {
		return nil
	}
	last := (c.rank+1)%c.size == root // the ring ends here
	for lo := 0; lo < len(buf) || lo == 0; lo += broadcastPiece {
		hi := min(lo+broadcastPiece, len(buf))
		if c.rank != root {
			in, err := c.recv('B', root, len(buf), hi-lo)
			if err != nil {
				return c.fail(err)
			}
			copy(buf[lo:hi], in)
		}
		if !last {
			if err := c.send('B', root, len(buf), buf[lo:hi]); err != nil {
				return c.fail(err)
			}
		}
		if hi == len(buf) {
			break
		}
	}
	return nil
}

func (c *tcpComm) Barrier() error {
	var one [1]float32
	return c.AllReduce(one[:], Sum)
}

func (c *tcpComm) Close() error {
	if c.err == nil {
		c.err = fmt.Errorf("dist: rank %d: %w", c.rank, ErrClosed)
	}
	for _, conn := range []net.Conn{c.prev, c.next} {
		if conn != nil {
			conn.Close()
		}
	}
	return nil
}
