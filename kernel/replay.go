package kernel

import "sync"

// replayWindow is how many signatures the kernel remembers, as ipykernel's
// Session.digest_history_size.
const replayWindow = 1 << 16

// replays remembers the signatures of recent messages, so that a signed
// message captured off the wire and sent again is dropped, as ipykernel
// does. The oldest signature is forgotten first.
type replays struct {
	size int // 0: replayWindow
	mu   sync.Mutex
	seen map[string]struct{}
	ring []string
	next int
}

// fresh records sig and reports whether it was not seen before. An empty
// signature (signing off) is always fresh.
func (r *replays) fresh(sig []byte) bool {
	if len(sig) == 0 {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		if r.size <= 0 {
			r.size = replayWindow
		}
		r.seen = make(map[string]struct{}, r.size)
		r.ring = make([]string, r.size)
	}
	s := string(sig)
	if _, dup := r.seen[s]; dup {
		return false
	}
	if old := r.ring[r.next]; old != "" {
		delete(r.seen, old)
	}
	r.ring[r.next] = s
	r.next = (r.next + 1) % len(r.ring)
	r.seen[s] = struct{}{}
	return true
}
