package zconn

import (
	"context"
	"io"
	"log"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// fuzzSockets are zmq4 sockets of the kinds a kernel binds, listening on
// the buffered transport for the whole test process.
var fuzzSockets = sync.OnceValues(func() ([]string, error) {
	ctx := context.Background()
	quiet := zmq4.WithLogger(log.New(io.Discard, "", 0))
	var addrs []string
	for _, s := range []zmq4.Socket{zmq4.NewRouter(ctx, quiet), zmq4.NewPub(ctx, quiet), zmq4.NewRep(ctx, quiet)} {
		ep, err := WithLimits("tcp://127.0.0.1:0", Limits{MaxMessage: 1 << 20, Handshake: time.Second})
		if err != nil {
			return nil, err
		}
		if err := s.Listen(ep); err != nil {
			return nil, err
		}
		addrs = append(addrs, s.Addr().String())
		if s.Type() != zmq4.Pub {
			go func() { // consume what arrives, as the kernel does
				for {
					if _, err := s.Recv(); err != nil && strings.Contains(err.Error(), "closed") {
						return
					}
				}
			}()
		}
	}
	return addrs, nil
})

// FuzzSocket sends a valid ZMTP greeting and then raw bytes to a ROUTER,
// a PUB and a REP socket: whatever the bytes, the process must survive
// (zmq4 v0.17 panics on a large frame header or bad READY metadata) and
// the socket must still accept connections.
func FuzzSocket(f *testing.F) {
	ready := readyCommand("Socket-Type", "DEALER", "Identity", "fz")
	f.Add([]byte{})
	f.Add(longHeader(flagCommand, 1<<50))
	f.Add(cat(ready, longHeader(0, 1<<50)))
	f.Add(cat(ready, longHeader(0, 1<<40)))
	f.Add(cat(ready, frame(flagMore, []byte("id")), frame(0, []byte("x"))))
	f.Add([]byte("\x04\x08\x05READY\x01"))
	f.Add([]byte("\x04\x0a\x05READY\x0bSocket-Type"))
	f.Add(cat(readyCommand("Socket-Type", "SUB"), frame(0, []byte{1}), frame(0, nil), frame(flagCommand, []byte("\x04PING\x00\x10"))))
	addrs, err := fuzzSockets()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, addr := range addrs {
			sendRaw(t, addr, append(greetingBytes(), data...))
		}
	})
}

// sendRaw writes b to addr and waits briefly for the server to answer or
// hang up, so that a crash it causes happens within the test.
func sendRaw(t testing.TB, addr string, b []byte) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(50 * time.Millisecond))
	c.Write(b)
	io.Copy(io.Discard, c)
}

// TestFailedHandshakesAreClosed sends bad greetings and bad READY
// commands: zmq4 drops a connection whose handshake fails without closing
// it, so the conn must close itself, or each attempt would keep a file
// descriptor and a goroutine.
func TestFailedHandshakesAreClosed(t *testing.T) {
	addrs, err := fuzzSockets()
	if err != nil {
		t.Fatal(err)
	}
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd here")
		}
		return len(ents)
	}
	before := fds()
	for i := range 200 {
		bad := []byte("GET / HTTP/1.0\r\n\r\n" + strings.Repeat("x", 64))
		if i%2 == 1 {
			bad = append(greetingBytes(), frame(flagCommand, []byte("\x05READY\x01"))...)
		}
		sendRaw(t, addrs[i%len(addrs)], bad)
	}
	// Give zmq4's accept loops time to reach the last connections.
	deadline := time.Now().Add(30 * time.Second)
	for fds() > before+20 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if after := fds(); after > before+20 {
		t.Errorf("open files %d after 200 failed handshakes, %d before: connections leak", after, before)
	}
}
