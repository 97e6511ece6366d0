package kernel

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gnnlab/gnnlab/kernel/internal/wire"
)

// shellQueue holds the execute requests of the main shell or of one
// subshell in arrival order, and the last failure of its cells (for
// stop_on_error, which aborts only its own queue).
type shellQueue struct {
	id   string // the subshell_id; "" for the main shell
	mu   sync.Mutex
	q    []request
	wake chan struct{}
	gone chan struct{} // closed when the subshell is deleted
	// failed is the last cell of this queue that failed with stop_on_error.
	failed failure
}

func newShellQueue(id string) *shellQueue {
	return &shellQueue{id: id, wake: make(chan struct{}, 1), gone: make(chan struct{})}
}

// push queues r; false when the subshell was deleted meanwhile.
func (q *shellQueue) push(r request) bool {
	q.mu.Lock()
	select {
	case <-q.gone:
		q.mu.Unlock()
		return false
	default:
	}
	q.q = append(q.q, r)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// next blocks until a request is queued; false when ctx is done or the
// subshell is deleted.
func (q *shellQueue) next(ctx context.Context) (request, bool) {
	for {
		q.mu.Lock()
		if len(q.q) > 0 {
			r := q.q[0]
			q.q = q.q[1:]
			q.mu.Unlock()
			return r, true
		}
		q.mu.Unlock()
		select {
		case <-q.wake:
		case <-q.gone:
			return request{}, false
		case <-ctx.Done():
			return request{}, false
		}
	}
}

// fail records f and returns the requests queued, emptying the queue.
func (q *shellQueue) fail(f failure) []request {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.failed = f
	rs := q.q
	q.q = nil
	return rs
}

// subshells are the kernel subshells of JEP 91 (protocol 5.5).
type subshells struct {
	mu sync.Mutex
	m  map[string]*shellQueue
}

func (s *subshells) get(id string) *shellQueue {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[id]
}

func (s *subshells) add(q *shellQueue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]*shellQueue{}
	}
	s.m[q.id] = q
}

func (s *subshells) remove(id string) *shellQueue {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.m[id]
	delete(s.m, id)
	return q
}

func (s *subshells) ids() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.m))
	for id := range s.m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// subshellRequest answers create_subshell_request, list_subshell_request
// and delete_subshell_request on control.
//
// A subshell is a queue of execute requests of its own: its cells run in
// its own order, and a failure with stop_on_error aborts only its own
// queue. The Go session runs one cell at a time, so a subshell's cell that
// arrives while another runs waits for it (busy meanwhile) rather than
// running beside it: a second writer never interleaves with the first.
// Everything else a subshell sends is answered at once, as on the main
// shell: comm messages (widgets) reach the session while a cell runs,
// kernel_info, history, comm_info and usage never wait, and completion,
// inspection and is_complete answer empty while a cell runs.
func (k *Kernel) subshellRequest(r request) {
	switch r.msgType() {
	case "create_subshell_request":
		q := newShellQueue(wire.NewID())
		k.subshells.add(q)
		go k.executor(q)
		k.reply(r, "create_subshell_reply", map[string]any{"status": "ok", "subshell_id": q.id})
	case "list_subshell_request":
		k.reply(r, "list_subshell_reply", map[string]any{"status": "ok", "subshell_id": k.subshells.ids()})
	case "delete_subshell_request":
		var c struct {
			SubshellID string `json:"subshell_id"`
		}
		if err := r.msg.DecodeContent(&c); err != nil {
			k.replyBadContent(r, err)
			return
		}
		q := k.subshells.remove(c.SubshellID)
		if q == nil {
			k.reply(r, "delete_subshell_reply", map[string]any{
				"status": "error", "ename": "UnknownSubshellError",
				"evalue": "unknown subshell_id " + strconv.Quote(c.SubshellID), "traceback": []string{},
			})
			return
		}
		// Its executor ends after the cell it runs, if any; requests
		// still queued are aborted.
		q.mu.Lock()
		close(q.gone)
		q.mu.Unlock()
		for _, qr := range q.fail(failure{}) {
			k.status(qr.msg.Header, "busy")
			k.reply(qr, "execute_reply", map[string]any{"status": "aborted", "execution_count": k.count()})
			k.status(qr.msg.Header, "idle")
		}
		k.reply(r, "delete_subshell_reply", map[string]any{"status": "ok"})
	}
}

// unknownSubshell answers a shell request for a subshell that does not
// exist with an error reply between busy and idle (a comm message, which
// has no reply, gets only the two statuses).
func (k *Kernel) unknownSubshell(r request) {
	id := r.msg.Header.SubshellID
	k.log.Printf("shell: %s for unknown subshell %q", r.msgType(), id)
	k.status(r.msg.Header, "busy")
	defer k.status(r.msg.Header, "idle")
	msgType, ok := replyType(r.msgType())
	if !ok {
		return
	}
	k.reply(r, msgType, map[string]any{
		"status": "error", "ename": "UnknownSubshellError",
		"evalue": "unknown subshell_id " + strconv.Quote(id), "traceback": []string{},
	})
}

// replyType returns the reply's type of a request's type.
func replyType(msgType string) (string, bool) {
	base, ok := strings.CutSuffix(msgType, "_request")
	if !ok {
		return "", false
	}
	return base + "_reply", true
}
