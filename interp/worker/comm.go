package worker

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/gnnlab/gnnlab/interp/workerproto"
	"github.com/gnnlab/gnnlab/viz/comm"
)

// commQueue holds the frontend's comm messages until the comm goroutine
// delivers them. It is unbounded: the reader must never block behind a
// slow callback, or interrupts and input replies would wait too.
type commQueue struct {
	mu     sync.Mutex
	reqs   []workerproto.Request
	wake   chan struct{}
	closed bool

	// The message being delivered: its request id and msg_id.
	curID    uint64
	curMsgID string

	// gid is the goroutine that delivers the messages (serveComms), set
	// before the first; active is the request being delivered, 0 between
	// them: deliveringHere reads them on every write of the session.
	gid    atomic.Uint64
	active atomic.Uint64
}

func newCommQueue() *commQueue { return &commQueue{wake: make(chan struct{}, 1)} }

func (q *commQueue) push(req workerproto.Request) {
	q.mu.Lock()
	q.reqs = append(q.reqs, req)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *commQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// next returns the next request, or false once the queue is closed and
// empty.
func (q *commQueue) next() (workerproto.Request, bool) {
	for {
		q.mu.Lock()
		if len(q.reqs) > 0 {
			r := q.reqs[0]
			q.reqs = q.reqs[1:]
			q.mu.Unlock()
			return r, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return workerproto.Request{}, false
		}
		<-q.wake
	}
}

func (q *commQueue) setCurrent(id uint64, msgID string) {
	q.mu.Lock()
	q.curID, q.curMsgID = id, msgID
	q.mu.Unlock()
	q.active.Store(id)
}

// deliveringHere returns the comm request whose handlers run on the
// calling goroutine, or 0: the caller is a cell, a goroutine of one, or
// no handler runs.
func (q *commQueue) deliveringHere() uint64 {
	id := q.active.Load()
	if id == 0 || goid() != q.gid.Load() {
		return 0
	}
	return id
}

func (q *commQueue) current() (uint64, string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.curID, q.curMsgID
}

// serveComms delivers the frontend's comm messages one at a time, during
// cells and between them, and answers each with EvDone after what its
// handlers printed.
func (s *server) serveComms() {
	s.comms.gid.Store(goid())
	for {
		req, ok := s.comms.next()
		if !ok {
			return
		}
		done := workerproto.Event{ID: req.ID, Kind: workerproto.EvDone}
		if req.Comm == nil {
			done.Error = &workerproto.CellError{Name: workerproto.EnameWorkerError, Value: "comm request without a message"}
		} else {
			s.comms.setCurrent(req.ID, req.Comm.MsgID)
			if err := deliver(comm.Msg(*req.Comm)); err != nil {
				done.Error = &workerproto.CellError{Name: workerproto.EnameCommError, Value: err.Error()}
			}
			s.comms.setCurrent(0, "")
			s.out.flush(req.ID)
			s.errOut.flush(req.ID)
		}
		if err := s.sendSynced(done); err != nil {
			return // the kernel is gone
		}
	}
}

// deliver passes m to the session's comms; a panic in a handler is an
// error of the message, not the end of the worker.
func deliver(m comm.Msg) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("comm handler panicked: %v\n%s", r, debug.Stack())
		}
	}()
	return comm.Deliver(m)
}

// commTransport sends the session's comm messages to the kernel.
type commTransport struct{ s *server }

// Send routes m as an event of the request it belongs to: the comm
// message being delivered when m comes from its handlers (the calling
// goroutine delivers it) or answers it, else the running cell, else the
// comm message being delivered; between all of them it goes out with ID
// 0 and the kernel publishes it on its own.
func (t commTransport) Send(m comm.Msg) error {
	s := t.s
	commID, commMsgID := s.comms.current()
	id := s.currentID()
	if commID != 0 && (id == 0 || (m.MsgID != "" && m.MsgID == commMsgID) || s.comms.deliveringHere() == commID) {
		id = commID
	}
	cm := workerproto.CommMsg(m)
	return s.sendSynced(workerproto.Event{ID: id, Kind: workerproto.EvComm, Comm: &cm})
}

// Parent returns the msg_id that output shown now is published under:
// that of the comm message whose handlers run on the calling goroutine
// (a widget callback: what it prints leaves as EvStream of that message),
// else the running cell's, else that of the comm message being delivered.
func (t commTransport) Parent() string {
	s := t.s
	if id := s.comms.deliveringHere(); id != 0 {
		if cid, msgID := s.comms.current(); cid == id {
			return msgID
		}
	}
	s.curMu.Lock()
	cell := s.curMsgID
	running := s.curID != 0
	s.curMu.Unlock()
	if running {
		return cell
	}
	_, msgID := s.comms.current()
	return msgID
}
