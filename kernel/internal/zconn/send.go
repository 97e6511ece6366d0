package zconn

import (
	"errors"
	"net"
	"sync"
	"time"
)

// closeDrain bounds how long Close waits for queued messages to leave.
const closeDrain = time.Second

var errClosed = errors.New("zconn: connection closed")

// sendQueue holds a connection's outgoing messages for its writer
// goroutine, so that a peer that does not read costs its own queue and
// never the goroutine that sends (zmq4's PUB writes to every subscriber
// in turn, its ROUTER holds one lock across a send).
type sendQueue struct {
	lim Limits

	mu      sync.Mutex
	cond    sync.Cond
	q       [][]byte
	bytes   int64
	busy    bool // the writer is writing a batch
	closing bool
	err     error
	dropped uint64
	done    chan struct{}

	closeOnce sync.Once
	closeErr  error
}

func (s *sendQueue) start(w net.Conn, lim Limits) {
	s.lim = lim
	s.cond.L = &s.mu
	s.done = make(chan struct{})
	go s.run(w)
}

// push queues b, or drops it when droppable and the queue is full. A
// message always goes into an empty queue, however large.
func (s *sendQueue) push(b []byte, droppable bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.closing {
		return
	}
	if droppable && len(s.q) > 0 && (len(s.q) >= s.lim.SendQueue || s.bytes+int64(len(b)) > s.lim.SendQueueBytes) {
		s.dropped++
		return
	}
	s.q = append(s.q, b)
	s.bytes += int64(len(b))
	s.cond.Broadcast()
}

func (s *sendQueue) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && s.closing {
		return errClosed
	}
	return s.err
}

func (s *sendQueue) droppedCount() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

func (s *sendQueue) run(w net.Conn) {
	defer close(s.done)
	for {
		s.mu.Lock()
		for len(s.q) == 0 && !s.closing {
			s.cond.Wait()
		}
		if len(s.q) == 0 {
			s.mu.Unlock()
			return
		}
		batch := net.Buffers(s.q)
		s.q, s.bytes, s.busy = nil, 0, true
		s.mu.Unlock()
		_, err := batch.WriteTo(w)
		s.mu.Lock()
		s.busy = false
		s.cond.Broadcast()
		if err != nil {
			s.err, s.q, s.bytes = err, nil, 0
			s.mu.Unlock()
			w.Close() // the reader fails too, and zmq4 drops the connection
			return
		}
		s.mu.Unlock()
	}
}

// wait blocks until the queue is empty and the writer idle (for tests).
func (s *sendQueue) wait() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for (len(s.q) > 0 || s.busy) && s.err == nil {
		s.cond.Wait()
	}
}

// abort closes c at once, dropping what is queued: its peer is gone or
// broke the protocol.
func (s *sendQueue) abort(c net.Conn) {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closing, s.q, s.bytes = true, nil, 0
		s.cond.Broadcast()
		s.mu.Unlock()
		s.closeErr = c.Close()
	})
}

// close lets the writer send what is queued, up to closeDrain, and closes
// c.
func (s *sendQueue) close(c net.Conn) error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closing = true
		s.cond.Broadcast()
		s.mu.Unlock()
		c.SetWriteDeadline(time.Now().Add(closeDrain))
		select {
		case <-s.done:
		case <-time.After(closeDrain + 100*time.Millisecond):
		}
		s.closeErr = c.Close()
	})
	return s.closeErr
}
