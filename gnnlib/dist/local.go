package dist

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
)

// NewLocal returns the n ranks of an in-process group, rank i at index i,
// for n goroutines of one process (one per GPU, or CPU ranks for tests and
// teaching). All-reduce is a ring over the ranks' own buffers: a
// reduce-scatter of n-1 steps in which each rank adds one chunk of its
// left neighbour's buffer into its own, then an all-gather of n-1 steps
// in which it copies one finished chunk from that neighbour, the ranks
// working in parallel and meeting at a barrier after each step. Each
// chunk is summed in a fixed rank order and then copied, so every rank
// gets the same bits and a run gives the same results every time.
func NewLocal(n int) ([]Communicator, error) {
	if n < 1 {
		return nil, fmt.Errorf("dist: NewLocal(%d): a group needs at least one rank", n)
	}
	g := &localGroup{n: n, bufs: make([][]float32, n), calls: make([]call, n)}
	g.cond = sync.NewCond(&g.mu)
	cs := make([]Communicator, n)
	for i := range cs {
		cs[i] = &local{g: g, rank: i}
	}
	return cs, nil
}

// Spawn runs fn for each of n in-process ranks (NewLocal) on its own
// goroutine and waits for all of them. A rank that returns an error or
// panics closes its communicator, so that the others fail instead of
// waiting for it; Spawn returns the ranks' errors (a panic becomes an
// error with its stack), leaving out the ErrClosed errors that the first
// failure caused in the others.
func Spawn(n int, fn func(c Communicator) error) error {
	cs, err := NewLocal(n)
	if err != nil {
		return err
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("dist: rank %d panicked: %v\n%s", i, p, debug.Stack())
				}
			}()
			if err := fn(c); err != nil {
				errs[i] = fmt.Errorf("dist: rank %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	var causes, closed []error
	for _, e := range errs {
		switch {
		case e == nil:
		case errors.Is(e, ErrClosed):
			closed = append(closed, e)
		default:
			causes = append(causes, e)
		}
	}
	if len(causes) == 0 {
		causes = closed
	}
	return errors.Join(causes...)
}

// call describes a collective call, so that ranks disagreeing on one are
// detected instead of corrupting each other's buffers.
type call struct {
	kind string // "all-reduce", "broadcast", "barrier"
	n    int    // buffer length
	arg  int    // Op or root
}

// localGroup is the state an in-process group shares.
type localGroup struct {
	n    int
	mu   sync.Mutex
	cond *sync.Cond
	// arrived counts the ranks waiting at the barrier of generation gen.
	arrived int
	gen     uint64
	// left is the rank that closed first, once broken is set.
	left   int
	broken bool
	// bufs and calls hold each rank's buffer and call during a
	// collective call; a rank writes only its own slot, before the call's
	// first barrier.
	bufs  [][]float32
	calls []call
}

// wait is the group's barrier. It fails once a rank has closed, unless
// the barrier it waits at was already passed.
func (g *localGroup) wait() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.broken {
		return fmt.Errorf("dist: rank %d left the group: %w", g.left, ErrClosed)
	}
	gen := g.gen
	g.arrived++
	if g.arrived == g.n {
		g.arrived = 0
		g.gen++
		g.cond.Broadcast()
		return nil
	}
	for gen == g.gen && !g.broken {
		g.cond.Wait()
	}
	if gen == g.gen {
		return fmt.Errorf("dist: rank %d left the group: %w", g.left, ErrClosed)
	}
	return nil
}

func (g *localGroup) leave(rank int) {
	g.mu.Lock()
	if !g.broken {
		g.broken, g.left = true, rank
		g.cond.Broadcast()
	}
	g.mu.Unlock()
}

// local is one rank of a localGroup.
type local struct {
	g      *localGroup
	rank   int
	closed bool
}

func (c *local) Rank() int { return c.rank }
func (c *local) Size() int { return c.g.n }

func (c *local) String() string { return fmt.Sprintf("dist.Local(rank %d of %d)", c.rank, c.g.n) }

// start records the rank's call, waits for the others and checks that
// they all made the same call.
func (c *local) start(buf []float32, k call) error {
	if c.closed {
		return fmt.Errorf("dist: rank %d: %s: %w", c.rank, k.kind, ErrClosed)
	}
	g := c.g
	g.bufs[c.rank], g.calls[c.rank] = buf, k
	if err := g.wait(); err != nil {
		return err
	}
	for r, o := range g.calls {
		if o != g.calls[0] {
			// Every rank sees the same slots, so all of them fail
			// here; the barrier keeps the slots until all have read.
			err := fmt.Errorf("dist: rank %d made %s of %d values (%d), rank 0 %s of %d (%d): %w",
				r, o.kind, o.n, o.arg, g.calls[0].kind, g.calls[0].n, g.calls[0].arg, ErrMismatch)
			if werr := g.wait(); werr != nil {
				return werr
			}
			return err
		}
	}
	return nil
}

func (c *local) AllReduce(buf []float32, op Op) error {
	if err := checkOp(op); err != nil {
		return err
	}
	if err := c.start(buf, call{"all-reduce", len(buf), int(op)}); err != nil {
		return err
	}
	g, n, r := c.g, c.g.n, c.rank
	if n == 1 {
		finish(buf, op, n)
		return g.wait()
	}
	left := g.bufs[(r+n-1)%n]
	// Reduce-scatter: at step s rank r adds chunk r-1-s of its left
	// neighbour, which that neighbour finished adding at step s-1; after
	// n-1 steps rank r holds the whole sum of chunk r+1.
	for s := 0; s < n-1; s++ {
		lo, hi := chunk(len(buf), n, (r-1-s+2*n)%n)
		dst, src := buf[lo:hi], left[lo:hi]
		for i := range dst {
			dst[i] += src[i]
		}
		if s == n-2 {
			// The sum is whole: divide it before the barrier, after
			// which the right neighbour copies it.
			finish(dst, op, n)
		}
		if err := g.wait(); err != nil {
			return err
		}
	}
	// All-gather: at step s rank r copies chunk r-s, which its left
	// neighbour finished (s = 0) or received at step s-1.
	for s := 0; s < n-1; s++ {
		lo, hi := chunk(len(buf), n, (r-s+n)%n)
		copy(buf[lo:hi], left[lo:hi])
		if err := g.wait(); err != nil {
			return err
		}
	}
	return nil
}

func (c *local) Broadcast(buf []float32, root int) error {
	if err := checkRoot(root, c.g.n); err != nil {
		return err
	}
	if err := c.start(buf, call{"broadcast", len(buf), root}); err != nil {
		return err
	}
	if c.rank != root {
		copy(buf, c.g.bufs[root])
	}
	return c.g.wait()
}

func (c *local) Barrier() error {
	if err := c.start(nil, call{"barrier", 0, 0}); err != nil {
		return err
	}
	return c.g.wait()
}

func (c *local) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	c.g.leave(c.rank)
	return nil
}
