package zconn

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// recorder is a net.Conn that records each Write.
type recorder struct {
	net.Conn
	writes [][]byte
}

func (r *recorder) Write(p []byte) (int, error) {
	r.writes = append(r.writes, append([]byte(nil), p...))
	return len(p), nil
}

func frame(flag byte, body []byte) []byte {
	if len(body) > 255 {
		h := []byte{flag | flagLong, 0, 0, 0, 0, 0, 0, 0, 0}
		n := len(body)
		for i := 8; i >= 1; i-- {
			h[i] = byte(n)
			n >>= 8
		}
		return append(h, body...)
	}
	return append([]byte{flag, byte(len(body))}, body...)
}

func TestWriteCoalescesMessages(t *testing.T) {
	greeting := bytes.Repeat([]byte{0xff}, greetingLen)
	cmd := frame(0x04, []byte("\x05READY"))
	msg := append(append(append([]byte{}, frame(flagMore, []byte("id"))...), frame(flagMore, nil)...), frame(0, bytes.Repeat([]byte("x"), 300))...)
	msg2 := frame(0, []byte("one"))
	stream := append(append(append(append([]byte{}, greeting...), cmd...), msg...), msg2...)
	want := [][]byte{greeting[:10], greeting[10:], cmd, msg, msg2}

	for _, chunk := range []int{1, 2, 3, 7, 64, len(stream)} {
		rec := &recorder{}
		c := New(rec)
		// The greeting passes as written: write it in the two parts a
		// ZMTP peer may use, then the rest in pieces of chunk bytes.
		c.Write(stream[:10])
		c.Write(stream[10:greetingLen])
		for rest := stream[greetingLen:]; len(rest) > 0; {
			k := min(chunk, len(rest))
			if n, err := c.Write(rest[:k]); n != k || err != nil {
				t.Fatalf("chunk %d: Write = %d, %v", chunk, n, err)
			}
			rest = rest[k:]
		}
		c.q.wait()
		if len(rec.writes) != len(want) {
			t.Fatalf("chunk %d: %d writes, want %d", chunk, len(rec.writes), len(want))
		}
		for i := range want {
			if !bytes.Equal(rec.writes[i], want[i]) {
				t.Errorf("chunk %d: write %d = %q, want %q", chunk, i, rec.writes[i], want[i])
			}
		}
	}
}

func TestLargeFrameArrivesWhole(t *testing.T) {
	rec := &recorder{}
	c := New(rec)
	c.Write(bytes.Repeat([]byte{0xff}, greetingLen))
	body := bytes.Repeat([]byte("p"), 3<<16)
	for f := frame(0, body); len(f) > 0; { // as zmq4 would never, in small pieces
		k := min(1000, len(f))
		c.Write(f[:k])
		f = f[k:]
	}
	c.q.wait()
	var got []byte
	for _, w := range rec.writes[1:] {
		got = append(got, w...)
	}
	if !bytes.Equal(got, frame(0, body)) {
		t.Fatalf("large frame arrived changed (%d bytes, want %d)", len(got), len(frame(0, body)))
	}
}

// TestZMQRoundTrip runs real zmq4 sockets over the buffered transports:
// a ROUTER on gnnlab-tcp answers a DEALER on plain tcp, and a PUB on
// gnnlab-ipc reaches a SUB.
func TestZMQRoundTrip(t *testing.T) {
	if err := Register(); err != nil {
		t.Fatal(err)
	}
	if err := Register(); err != nil {
		t.Fatalf("second Register: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	router := zmq4.NewRouter(ctx, zmq4.WithID(zmq4.SocketIdentity("router")))
	defer router.Close()
	if err := router.Listen(Endpoint("tcp://127.0.0.1:0")); err != nil {
		t.Fatal(err)
	}
	port := router.Addr().(*net.TCPAddr).Port
	dealer := zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity("dealer")))
	defer dealer.Close()
	if err := dealer.Dial("tcp://127.0.0.1:" + itoa(port)); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("b"), 200000)
	for i := 0; i < 3; i++ {
		if err := dealer.SendMulti(zmq4.NewMsgFrom([]byte("hello"), big)); err != nil {
			t.Fatal(err)
		}
		m, err := router.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Frames) != 3 || string(m.Frames[1]) != "hello" || !bytes.Equal(m.Frames[2], big) {
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

	ep := "ipc://" + t.TempDir() + "/pub"
	pub := zmq4.NewPub(ctx)
	defer pub.Close()
	if err := pub.Listen(Endpoint(ep)); err != nil {
		t.Fatal(err)
	}
	sub := zmq4.NewSub(ctx)
	defer sub.Close()
	if err := sub.Dial(ep); err != nil {
		t.Fatal(err)
	}
	sub.SetOption(zmq4.OptionSubscribe, "")
	got := make(chan zmq4.Msg, 1)
	go func() {
		m, err := sub.Recv()
		if err == nil {
			got <- m
		}
	}()
	for {
		pub.Send(zmq4.NewMsgFrom([]byte("topic"), []byte("news")))
		select {
		case m := <-got:
			if string(m.Frames[1]) != "news" {
				t.Fatalf("sub got %q", m.Frames)
			}
			return
		case <-time.After(20 * time.Millisecond): // the subscription may not have arrived yet
		case <-ctx.Done():
			t.Fatal("sub received nothing")
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
