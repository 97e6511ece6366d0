package zconn

import (
	"bytes"
	"context"
	"io"
	"log"
	"net"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

func TestZ85(t *testing.T) {
	// The test vector of ZeroMQ RFC 32.
	raw := []byte{0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B}
	if got := Z85Encode(raw); got != "HelloWorld" {
		t.Errorf("Z85Encode(%x) = %q, want HelloWorld", raw, got)
	}
	if got, err := Z85Decode("HelloWorld"); err != nil || !bytes.Equal(got, raw) {
		t.Errorf("Z85Decode(HelloWorld) = %x, %v, want %x", got, err, raw)
	}
	for _, bad := range []string{"Hello", "Hell~World", "%%%%%"} {
		if _, err := Z85Decode(bad + bad[:len(bad)%5]); err == nil && bad != "Hello" {
			t.Errorf("Z85Decode(%q) succeeded, want an error", bad)
		}
	}
}

// TestParseCurveKeys reads a key pair that libzmq made (pyzmq's
// zmq.curve_keypair()), so our Z85 and key derivation agree with it.
func TestParseCurveKeys(t *testing.T) {
	const pub, sec = "Rg@[(EX-b@^*[F2vU&EpP+a+bhR%9:I?E/([Kmnp", "*bSZwnHK4uuTrQy(DP^88x6m=>MN<W(in*.0)jcn"
	if _, err := ParseCurveKeys(pub, sec); err != nil {
		t.Fatalf("ParseCurveKeys(libzmq pair) = %v", err)
	}
	_, otherPub, _, err := NewCurveKeys()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseCurveKeys(otherPub, sec); err == nil {
		t.Error("ParseCurveKeys of a mismatched pair succeeded")
	}
	if _, err := ParseCurveKeys(pub[:39], sec); err == nil {
		t.Error("ParseCurveKeys of a short key succeeded")
	}
}

// curvePair starts a ROUTER listening with keys and returns its endpoint.
func curveRouter(t *testing.T, ctx context.Context, keys *CurveKeys) (zmq4.Socket, string) {
	t.Helper()
	router := zmq4.NewRouter(ctx, zmq4.WithLogger(quietLog))
	t.Cleanup(func() { router.Close() })
	ep, err := WithLimits("tcp://127.0.0.1:0", Limits{Curve: keys})
	if err != nil {
		t.Fatal(err)
	}
	if err := router.Listen(ep); err != nil {
		t.Fatal(err)
	}
	return router, "127.0.0.1:" + itoa(router.Addr().(*net.TCPAddr).Port)
}

func dealerWith(t *testing.T, ctx context.Context, addr string, keys *CurveKeys) zmq4.Socket {
	t.Helper()
	d := zmq4.NewDealer(ctx, zmq4.WithLogger(quietLog), zmq4.WithDialerRetry(-1))
	t.Cleanup(func() { d.Close() })
	ep := "tcp://" + addr
	if keys != nil {
		var err error
		if ep, err = WithLimits(ep, Limits{Curve: keys}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Dial(ep); err != nil {
		return nil
	}
	return d
}

// TestCurveRoundTrip: zmq4 sockets over CurveZMQ exchange multipart
// messages, small and large, both ways.
func TestCurveRoundTrip(t *testing.T) {
	keys, _, _, err := NewCurveKeys()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	router, addr := curveRouter(t, ctx, keys)
	dealer := dealerWith(t, ctx, addr, keys)
	if dealer == nil {
		t.Fatal("dial failed")
	}
	big := bytes.Repeat([]byte("b"), 200000)
	for range 3 {
		if err := dealer.SendMulti(zmq4.NewMsgFrom([]byte("hello"), nil, big)); err != nil {
			t.Fatal(err)
		}
		m, err := router.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Frames) != 4 || string(m.Frames[1]) != "hello" || len(m.Frames[2]) != 0 || !bytes.Equal(m.Frames[3], big) {
			t.Fatalf("router got %d frames", len(m.Frames))
		}
		if err := router.SendMulti(zmq4.NewMsgFrom(m.Frames[0], []byte("reply"), big[:300])); err != nil {
			t.Fatal(err)
		}
		r, err := dealer.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Frames) != 2 || string(r.Frames[0]) != "reply" || len(r.Frames[1]) != 300 {
			t.Fatalf("dealer got %q", r.Frames)
		}
	}
}

// TestCurveRefusesPeers: a plaintext peer and a peer with another key
// never get a message through, and the server serves the right peer after
// them.
func TestCurveRefusesPeers(t *testing.T) {
	keys, _, _, err := NewCurveKeys()
	if err != nil {
		t.Fatal(err)
	}
	other, _, _, err := NewCurveKeys()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	router, addr := curveRouter(t, ctx, keys)
	got := make(chan zmq4.Msg, 10)
	go func() {
		for {
			m, err := router.Recv()
			if err != nil {
				return
			}
			got <- m
		}
	}()
	for _, tc := range []struct {
		name string
		keys *CurveKeys
	}{{"plaintext", nil}, {"wrong key", other}} {
		// A raw dial with its own handshake: zmq4's Dial blocks on a
		// refused handshake, so send and close from a goroutine.
		d := zmq4.NewDealer(ctx, zmq4.WithLogger(quietLog), zmq4.WithDialerRetry(-1))
		ep := "tcp://" + addr
		if tc.keys != nil {
			ep, _ = WithLimits(ep, Limits{Curve: tc.keys})
		}
		done := make(chan error, 1)
		go func() {
			if err := d.Dial(ep); err != nil {
				done <- err
				return
			}
			done <- d.Send(zmq4.NewMsgString("intruder"))
		}()
		select {
		case m := <-got:
			t.Errorf("%s peer: the server received %q", tc.name, m.Frames)
		case <-done:
		case <-time.After(2 * time.Second):
		}
		d.Close()
	}
	select {
	case m := <-got:
		t.Fatalf("the server received %q from a refused peer", m.Frames)
	case <-time.After(300 * time.Millisecond):
	}
	dealer := dealerWith(t, ctx, addr, keys)
	if dealer == nil {
		t.Fatal("the right peer could not dial after the refused ones")
	}
	if err := dealer.Send(zmq4.NewMsgString("friend")); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if string(m.Frames[len(m.Frames)-1]) != "friend" {
			t.Errorf("server got %q, want friend", m.Frames)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not receive the right peer's message within 20 s")
	}
}

var quietLog = log.New(io.Discard, "", 0)

// FuzzCurveServer feeds a CURVE server connection a CURVE greeting and
// then arbitrary bytes: every read either succeeds or fails, never panics
// (the handshake parses what an unauthenticated peer sends).
func FuzzCurveServer(f *testing.F) {
	keys, _, _, err := NewCurveKeys()
	if err != nil {
		f.Fatal(err)
	}
	g := make([]byte, greetingLen)
	g[0], g[9], g[10] = 0xff, 0x7f, 3
	copy(g[12:], "CURVE")
	hello := append([]byte("\x05HELLO\x01\x00"), make([]byte, 72+32+8+80)...)
	f.Add(append([]byte{0x04, byte(len(hello))}, hello...))
	f.Add([]byte{0x04, 9, 8, 'I', 'N', 'I', 'T', 'I', 'A', 'T', 'E'})
	f.Add([]byte{0x00, 20, 7, 'M', 'E', 'S', 'S', 'A', 'G', 'E'})
	f.Add([]byte{0x06, 0, 0, 0, 0, 0, 0, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, rest []byte) {
		a, b := net.Pipe()
		defer a.Close()
		go io.Copy(io.Discard, a) // the server's greeting and WELCOME
		go func() {
			a.Write(g)
			a.Write(rest)
			a.Close()
		}()
		c := newCurveConn(b, keys, true, 1<<20)
		c.meta <- nil // zmq4's READY metadata
		defer c.Close()
		buf := make([]byte, 512)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	})
}

// BenchmarkRoundTrip times a Jupyter-shaped message (six frames, about
// 1 KiB) from a DEALER to a ROUTER and back, plain and over CURVE.
func BenchmarkRoundTrip(b *testing.B) {
	keys, _, _, err := NewCurveKeys()
	if err != nil {
		b.Fatal(err)
	}
	frames := [][]byte{[]byte("<IDS|MSG>"), bytes.Repeat([]byte("a"), 64), bytes.Repeat([]byte("h"), 200),
		bytes.Repeat([]byte("p"), 200), []byte("{}"), bytes.Repeat([]byte("c"), 500)}
	for _, tc := range []struct {
		name string
		keys *CurveKeys
	}{{"plain", nil}, {"curve", keys}} {
		b.Run(tc.name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			router := zmq4.NewRouter(ctx, zmq4.WithLogger(quietLog))
			defer router.Close()
			ep, err := WithLimits("tcp://127.0.0.1:0", Limits{Curve: tc.keys})
			if err != nil {
				b.Fatal(err)
			}
			if err := router.Listen(ep); err != nil {
				b.Fatal(err)
			}
			dep := "tcp://127.0.0.1:" + itoa(router.Addr().(*net.TCPAddr).Port)
			if dep, err = WithLimits(dep, Limits{Curve: tc.keys}); err != nil {
				b.Fatal(err)
			}
			dealer := zmq4.NewDealer(ctx, zmq4.WithLogger(quietLog))
			defer dealer.Close()
			if err := dealer.Dial(dep); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := dealer.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
					b.Fatal(err)
				}
				m, err := router.Recv()
				if err != nil {
					b.Fatal(err)
				}
				if err := router.SendMulti(zmq4.NewMsgFrom(m.Frames...)); err != nil {
					b.Fatal(err)
				}
				if _, err := dealer.Recv(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
