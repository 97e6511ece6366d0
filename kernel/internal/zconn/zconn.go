// Package zconn gives zmq4 sockets connections that send each ZeroMQ
// message in one write and read through a buffer.
//
// zmq4 writes every frame as two writes (header, then body), so one Jupyter
// message of seven frames costs fourteen system calls and as many wake-ups
// of the peer, and it reads every header and body with a read of its own.
// On a trivial cell the kernel sends five messages: those calls were most
// of its time. A conn here parses the ZMTP 3 framing of what zmq4 writes,
// keeps the bytes until a message (or a command) is complete and writes it
// at once; reads go through a bufio.Reader.
//
// Register makes the transports "gnnlab-tcp" and "gnnlab-ipc" known to
// zmq4; Endpoint rewrites a "tcp://" or "ipc://" endpoint to use them.
package zconn

import (
	"bufio"
	"context"
	"encoding/binary"
	"net"
	"strings"
	"sync"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/transport"
)

const (
	greetingLen = 64      // ZMTP 3 greeting, written through unbuffered
	flushAt     = 1 << 16 // a large frame is written in pieces of this size
	flagMore    = 0x01
	flagLong    = 0x02
)

var register = sync.OnceValue(func() error {
	for name, network := range map[string]string{"gnnlab-tcp": "tcp", "gnnlab-ipc": "unix"} {
		if err := zmq4.RegisterTransport(name, netTransport{Transport: transport.New(network), network: network}); err != nil {
			return err
		}
	}
	return nil
})

// Register adds the buffered transports to zmq4. It is safe to call more
// than once.
func Register() error { return register() }

// Endpoint rewrites a tcp:// or ipc:// endpoint to the buffered transport of
// the same kind; other endpoints are returned unchanged.
func Endpoint(ep string) string {
	for _, p := range []string{"tcp", "ipc"} {
		if rest, ok := strings.CutPrefix(ep, p+"://"); ok {
			return "gnnlab-" + p + "://" + rest
		}
	}
	return ep
}

type netTransport struct {
	transport.Transport
	network string
}

func (t netTransport) Dial(ctx context.Context, d transport.Dialer, addr string) (net.Conn, error) {
	c, err := d.DialContext(ctx, t.network, addr)
	if err != nil {
		return nil, err
	}
	return New(c), nil
}

func (t netTransport) Listen(ctx context.Context, addr string) (net.Listener, error) {
	l, err := net.Listen(t.network, addr)
	if err != nil {
		return nil, err
	}
	return listener{l}, nil
}

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return New(c), nil
}

// Conn is a net.Conn that coalesces the writes of each ZMTP frame sequence
// into one write and buffers reads.
type Conn struct {
	net.Conn
	r *bufio.Reader

	mu       sync.Mutex
	buf      []byte
	greeting int // greeting bytes still to pass
	hdr      [9]byte
	hdrLen   int    // header bytes seen of the current frame
	hdrNeed  int    // header bytes still missing; 0 between frames or in a body
	body     uint64 // body bytes still missing of the current frame
	last     bool   // the current frame ends a message (or is a command)
}

// New wraps c.
func New(c net.Conn) *Conn {
	return &Conn{Conn: c, r: bufio.NewReaderSize(c, 1<<16), greeting: greetingLen}
}

// Read reads through the buffer.
func (c *Conn) Read(p []byte) (int, error) { return c.r.Read(p) }

// Write takes bytes of the ZMTP stream and writes them to the connection
// when a message or command is complete.
func (c *Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		switch {
		case c.greeting > 0:
			k := min(c.greeting, len(p))
			c.buf = append(c.buf, p[:k]...)
			c.greeting -= k
			p = p[k:]
			if err := c.flush(); err != nil {
				return 0, err
			}
		case c.hdrNeed == 0 && c.body == 0: // a frame starts
			c.hdrLen, c.hdrNeed = 0, 2
			if p[0]&flagLong != 0 {
				c.hdrNeed = 9
			}
			c.last = p[0]&flagMore == 0
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
				if err := c.flush(); err != nil {
					return 0, err
				}
			}
		default: // body bytes
			k := len(p)
			if uint64(k) > c.body {
				k = int(c.body)
			}
			c.buf = append(c.buf, p[:k]...)
			c.body -= uint64(k)
			p = p[k:]
			if c.body == 0 && c.last || len(c.buf) >= flushAt {
				if err := c.flush(); err != nil {
					return 0, err
				}
			}
		}
	}
	return n, nil
}

func (c *Conn) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	_, err := c.Conn.Write(c.buf)
	if cap(c.buf) > 1<<20 {
		c.buf = nil // do not keep a large image's buffer
	} else {
		c.buf = c.buf[:0]
	}
	return err
}
