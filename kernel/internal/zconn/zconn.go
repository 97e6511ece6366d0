// Package zconn gives zmq4 sockets connections that send each ZeroMQ
// message in one write, read through a buffer, and bound what a peer can
// cost the process.
//
// zmq4 writes every frame as two writes (header, then body), so one Jupyter
// message of seven frames costs fourteen system calls and as many wake-ups
// of the peer, and it reads every header and body with a read of its own.
// On a trivial cell the kernel sends five messages: those calls were most
// of its time. A conn here parses the ZMTP 3 framing of what zmq4 writes,
// keeps the bytes until a message (or a command) is complete and queues it
// for a writer goroutine of its own, which sends what has queued in one
// write; reads go through a bufio.Reader.
//
// # Limits
//
// zmq4 v0.17 trusts its peers: it allocates a frame's body at the size the
// header announces (a header of 2^50 bytes panics the process before any
// signature is checked), parses READY metadata past its end, and writes to
// every peer in turn, so a subscriber that never reads stalls the PUB
// socket for all. A conn follows the stream the peer sends and fails the
// read (zmq4 then drops the connection) on a message over
// Limits.MaxMessage or on bytes zmq4 would choke on, before zmq4 sees the
// header; it gives the handshake Limits.Handshake; and its send queue
// holds Limits.SendQueue messages, beyond which new messages to that peer
// are dropped (ZeroMQ's high-water mark) while the other peers go on.
//
// # XPUB subscriptions and CURVE
//
// zmq4's XPUB socket keeps subscriptions to itself; a conn whose
// Limits.Welcome is set sees each one in the stream and queues the
// Welcomer's message for that peer alone (protocol 5.5's iopub_welcome).
// zmq4's Security interface writes a frame's header with the plaintext
// length before the mechanism sees the frame, so no encrypting mechanism
// fits it; with Limits.Curve a conn speaks CurveZMQ (RFC 26) to the peer
// itself (curve.go) and shows zmq4 a NULL-mechanism stream.
//
// Register makes the transports "gnnlab-tcp" and "gnnlab-ipc" known to
// zmq4; Endpoint rewrites a "tcp://" or "ipc://" endpoint to use them, and
// WithLimits to transports with other limits.
package zconn

import (
	"bufio"
	"context"
	"encoding/binary"
	"net"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4/transport"
)

const (
	greetingLen = 64 // ZMTP 3 greeting, written through unbuffered
	flagMore    = 0x01
	flagLong    = 0x02
)

type netTransport struct {
	transport.Transport
	network string
	lim     Limits
}

func (t netTransport) Dial(ctx context.Context, d transport.Dialer, addr string) (net.Conn, error) {
	c, err := d.DialContext(ctx, t.network, addr)
	if err != nil {
		return nil, err
	}
	return newConn(c, t.lim, false), nil
}

func (t netTransport) Listen(ctx context.Context, addr string) (net.Listener, error) {
	l, err := net.Listen(t.network, addr)
	if err != nil {
		return nil, err
	}
	return listener{l, t.lim}, nil
}

type listener struct {
	net.Listener
	lim Limits
}

// Accept gives the peer Limits.Handshake to greet and send its READY:
// zmq4 runs each handshake in its accept loop, so a peer that sends
// nothing would otherwise keep every later client out.
func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	zc := newConn(c, l.lim, true)
	if err := c.SetReadDeadline(time.Now().Add(zc.lim.Handshake)); err == nil {
		zc.rd.handshake = func() { c.SetReadDeadline(time.Time{}) }
	}
	return zc, nil
}

// Conn is a net.Conn that coalesces the writes of each ZMTP frame sequence
// into one write from a bounded queue, and checks and buffers reads.
type Conn struct {
	net.Conn
	lim Limits
	rd  reader

	mu       sync.Mutex // serializes Write's parsing
	buf      []byte
	greeting int // greeting bytes still to pass
	hdr      [9]byte
	hdrLen   int    // header bytes seen of the current frame
	hdrNeed  int    // header bytes still missing; 0 between frames or in a body
	body     uint64 // body bytes still missing of the current frame
	last     bool   // the current frame ends a message (or is a command)
	command  bool   // the current frame is a command: never dropped

	q sendQueue
}

// New wraps c with the default Limits.
func New(c net.Conn) *Conn { return newConn(c, Limits{}, false) }

// newConn wraps c; server says it was accepted (the CURVE server).
func newConn(c net.Conn, l Limits, server bool) *Conn {
	l = l.withDefaults()
	if l.Curve != nil {
		c = newCurveConn(c, l.Curve, server, l.MaxMessage)
	}
	zc := &Conn{Conn: c, lim: l, greeting: greetingLen}
	zc.rd = reader{r: bufio.NewReaderSize(c, 1<<16), lim: zc.lim}
	zc.q.start(c, zc.lim)
	if w := zc.lim.Welcome; w != nil {
		zc.rd.onMessage = func(b []byte) {
			if len(b) > 0 && b[0] == 1 {
				if frames := w.Welcome(b[1:]); frames != nil {
					zc.sendFrames(frames)
				}
			}
		}
	}
	return zc
}

// sendFrames queues one message of frames, between the messages zmq4
// writes: zmq4's partial message stays in buf until it is complete.
func (c *Conn) sendFrames(frames [][]byte) {
	var b []byte
	for i, f := range frames {
		var flag byte
		if i < len(frames)-1 {
			flag |= flagMore
		}
		if len(f) > 255 {
			b = append(b, flag|flagLong)
			b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
		} else {
			b = append(b, flag, byte(len(f)))
		}
		b = append(b, f...)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.q.push(b, true)
}

// Read reads through the buffer and the checks of the stream. A read
// that fails closes the connection: zmq4 gives up on it, and one whose
// handshake fails it drops without closing (a file descriptor and a
// goroutine per bad greeting, otherwise).
func (c *Conn) Read(p []byte) (int, error) {
	n, err := c.rd.Read(p)
	if err != nil {
		c.q.abort(c.Conn)
	}
	return n, err
}

// Write takes bytes of the ZMTP stream and queues them when a message or
// command is complete. It does not wait for the peer.
func (c *Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.q.failed(); err != nil {
		return 0, err
	}
	n := len(p)
	for len(p) > 0 {
		switch {
		case c.greeting > 0:
			k := min(c.greeting, len(p))
			c.buf = append(c.buf, p[:k]...)
			c.greeting -= k
			p = p[k:]
			c.flush(false)
		case c.hdrNeed == 0 && c.body == 0: // a frame starts
			c.hdrLen, c.hdrNeed = 0, 2
			if p[0]&flagLong != 0 {
				c.hdrNeed = 9
			}
			c.last = p[0]&flagMore == 0
			c.command = p[0]&flagCommand != 0
		case c.hdrNeed > 0:
			k := min(c.hdrNeed, len(p))
			copy(c.hdr[c.hdrLen:], p[:k])
			c.hdrLen += k
			c.hdrNeed -= k
			c.buf = append(c.buf, p[:k]...)
			p = p[k:]
			if c.hdrNeed > 0 {
				break
			}
			if c.hdrLen == 2 {
				c.body = uint64(c.hdr[1])
			} else {
				c.body = binary.BigEndian.Uint64(c.hdr[1:9])
			}
			if c.body == 0 && c.last {
				c.flush(!c.command)
			}
		default: // body bytes
			k := len(p)
			if uint64(k) > c.body {
				k = int(c.body)
			}
			c.buf = append(c.buf, p[:k]...)
			c.body -= uint64(k)
			p = p[k:]
			if c.body == 0 && c.last {
				c.flush(!c.command)
			}
		}
	}
	return n, nil
}

// flush hands the bytes gathered to the send queue; droppable says they
// are a whole message that the queue may drop when the peer lags.
func (c *Conn) flush(droppable bool) {
	if len(c.buf) == 0 {
		return
	}
	c.q.push(c.buf, droppable)
	c.buf = nil
}

// Close sends what is queued (waiting a little for a slow peer) and closes
// the connection.
func (c *Conn) Close() error { return c.q.close(c.Conn) }

// Dropped returns how many messages the send queue has dropped.
func (c *Conn) Dropped() uint64 { return c.q.droppedCount() }
