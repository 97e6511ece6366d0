package zconn

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/transport"
)

// recordingTransport is netTransport whose listeners hand the test every
// Conn they accept, so that it can read the Conn's drop count.
type recordingTransport struct {
	netTransport
	conns chan *Conn
}

func (t recordingTransport) Listen(ctx context.Context, addr string) (net.Listener, error) {
	l, err := t.netTransport.Listen(ctx, addr)
	if err != nil {
		return nil, err
	}
	return recordingListener{l.(listener), t.conns}, nil
}

type recordingListener struct {
	listener
	conns chan *Conn
}

func (l recordingListener) Accept() (net.Conn, error) {
	c, err := l.listener.Accept()
	if err == nil {
		l.conns <- c.(*Conn)
	}
	return c, err
}

var recordingSeq struct {
	sync.Mutex
	n int
}

// xpubPair starts a zmq4 XPUB on a zconn transport with lim and a zmq4 SUB
// subscribed to everything; it returns them once a message gets through,
// with the XPUB's Conn to the SUB.
func xpubPair(t *testing.T, lim Limits) (pub, sub zmq4.Socket, conn *Conn) {
	t.Helper()
	recordingSeq.Lock()
	recordingSeq.n++
	scheme := fmt.Sprintf("zconnrec%d-tcp", recordingSeq.n)
	recordingSeq.Unlock()
	conns := make(chan *Conn, 1)
	tr := recordingTransport{netTransport{Transport: transport.New("tcp"), network: "tcp", lim: lim.withDefaults()}, conns}
	if err := zmq4.RegisterTransport(scheme, tr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pub = zmq4.NewXPub(ctx)
	t.Cleanup(func() { pub.Close() })
	if err := pub.Listen(scheme + "://127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	sub = zmq4.NewSub(ctx)
	t.Cleanup(func() { sub.Close() })
	if err := sub.Dial(fmt.Sprintf("tcp://127.0.0.1:%d", pub.Addr().(*net.TCPAddr).Port)); err != nil {
		t.Fatal(err)
	}
	if err := sub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		t.Fatal(err)
	}
	select {
	case conn = <-conns:
	case <-time.After(10 * time.Second):
		t.Fatal("the XPUB accepted no connection")
	}
	// Probe until the subscription has arrived and a message gets through.
	got := make(chan error, 1)
	go func() {
		_, err := sub.Recv()
		got <- err
	}()
	// The wait doubles, so that a loaded machine (the race detector, the
	// whole suite in parallel) leaves a handful of late probes in the
	// send queue, not dozens that would crowd out the test's messages.
	wait := 5 * time.Millisecond
	for deadline := time.Now().Add(10 * time.Second); ; {
		if err := pub.Send(zmq4.NewMsgFrom([]byte("probe"))); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-got:
			if err != nil {
				t.Fatal(err)
			}
			drained := make(chan struct{})
			go func() { conn.q.wait(); close(drained) }()
			select {
			case <-drained:
			case <-time.After(30 * time.Second):
				t.Fatal("the XPUB's send queue did not drain the probes within 30 s")
			}
			return pub, sub, conn
		case <-time.After(wait):
		}
		if time.Now().After(deadline) {
			t.Fatal("the SUB received no probe")
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// recvSeq receives until enough says so (asked after each message and
// every 50 ms) or nothing has come for quiet, skipping probes; it fails
// on a message out of order and returns the sequence numbers received.
func recvSeq(t *testing.T, sub zmq4.Socket, enough func(received int) bool, quiet time.Duration, each func()) []uint64 {
	t.Helper()
	msgs := make(chan zmq4.Msg, 64)
	go func() {
		defer close(msgs)
		for {
			m, err := sub.Recv()
			if err != nil {
				return
			}
			msgs <- m
		}
	}()
	var seqs []uint64
	silence := time.NewTimer(quiet)
	defer silence.Stop()
	recheck := time.NewTicker(50 * time.Millisecond)
	defer recheck.Stop()
	for !enough(len(seqs)) {
		select {
		case <-recheck.C:
		case m, ok := <-msgs:
			if !ok {
				t.Fatalf("the SUB stopped after %d messages", len(seqs))
			}
			if len(m.Frames) != 2 || string(m.Frames[0]) != "seq" {
				continue // a late probe
			}
			s := binary.BigEndian.Uint64(m.Frames[1])
			if len(seqs) > 0 && s <= seqs[len(seqs)-1] {
				t.Fatalf("message %d after %d: out of order", s, seqs[len(seqs)-1])
			}
			seqs = append(seqs, s)
			silence.Reset(quiet)
			if each != nil {
				each()
			}
		case <-silence.C:
			return seqs
		}
	}
	return seqs
}

func seqMsg(i int, size int) zmq4.Msg {
	body := make([]byte, size)
	binary.BigEndian.PutUint64(body, uint64(i))
	return zmq4.NewMsgFrom([]byte("seq"), body)
}

// TestXPubSubscriberKeepingUpGetsAll publishes 20,000 messages to a
// subscriber that keeps up (never more than 32 unread, the send queue
// holds 64): every message must arrive, in order, and none be dropped.
// A loss here would be zconn's, not the high-water mark's.
// With a Welcomer the welcome is queued from the reader goroutine while
// zmq4 writes: it must cost no message either.
func TestXPubSubscriberKeepingUpGetsAll(t *testing.T) {
	for _, tc := range []struct {
		name string
		lim  Limits
	}{
		{"plain", Limits{SendQueue: 64}},
		{"welcome", Limits{SendQueue: 64, Welcome: &testWelcomer{}}},
	} {
		t.Run(tc.name, func(t *testing.T) { keepUp(t, tc.lim) })
	}
}

type testWelcomer struct{}

func (*testWelcomer) Welcome(topic []byte) [][]byte { return [][]byte{[]byte("welcome")} }

func keepUp(t *testing.T, lim Limits) {
	const n, window = 20000, 32
	pub, sub, conn := xpubPair(t, lim)
	credit := make(chan struct{}, window)
	for range window {
		credit <- struct{}{}
	}
	sendErr := make(chan error, 1)
	stop := make(chan struct{})
	go func() {
		for i := range n {
			select {
			case <-credit:
			case <-stop: // a message was lost: its credit never comes back
				sendErr <- fmt.Errorf("the sender stopped after %d messages, waiting for credit", i)
				return
			}
			if err := pub.Send(seqMsg(i, 16)); err != nil {
				sendErr <- err
				return
			}
		}
		sendErr <- nil
	}()
	seqs := recvSeq(t, sub, func(received int) bool { return received >= n }, 10*time.Second, func() { credit <- struct{}{} })
	close(stop)
	err := <-sendErr
	if len(seqs) != n || conn.Dropped() != 0 {
		t.Fatalf("a subscriber keeping up received %d of %d messages, %d dropped (sender: %v); want all, none dropped", len(seqs), n, conn.Dropped(), err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestXPubLaggingSubscriberLosesOnlyTheDropped publishes 20,000 messages of
// 4 KiB to a subscriber that reads none until all are sent: the send queue
// drops at its high-water mark, and every message is either received, in
// order, or counted as dropped by the Conn. This is the loss that the
// kernel's TestUnreadRepliesDoNotBlockOthers sees on its own lagging iopub
// subscriber under load.
func TestXPubLaggingSubscriberLosesOnlyTheDropped(t *testing.T) {
	const n = 20000
	pub, sub, conn := xpubPair(t, Limits{SendQueue: 64})
	for i := range n {
		if err := pub.Send(seqMsg(i, 4096)); err != nil {
			t.Fatal(err)
		}
	}
	// The receiver stops once every message is received or counted as
	// dropped; only a loss that the Conn did not count makes it wait out
	// the quiet period (generous, for a loaded machine) and fail.
	seqs := recvSeq(t, sub, func(received int) bool { return uint64(received)+conn.Dropped() >= n }, 10*time.Second, nil)
	dropped := conn.Dropped()
	t.Logf("lagging subscriber: %d received, %d dropped at the high-water mark", len(seqs), dropped)
	if uint64(len(seqs))+dropped != n {
		t.Fatalf("received %d + dropped %d = %d, want %d: messages lost without being counted", len(seqs), dropped, uint64(len(seqs))+dropped, n)
	}
	if dropped == 0 {
		t.Fatalf("nothing dropped: 80 MB to a subscriber that did not read fit in the socket buffers?")
	}
}
