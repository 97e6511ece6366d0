package dist

import (
	"errors"
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Op is the reduction of an all-reduce.
type Op int

const (
	// Sum adds the ranks' buffers element by element.
	Sum Op = iota
	// Mean is Sum divided by the number of ranks.
	Mean
)

func (o Op) String() string {
	switch o {
	case Sum:
		return "sum"
	case Mean:
		return "mean"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Communicator is one rank of a group of Size ranks that reduce and share
// float32 buffers. Every rank must make the same calls in the same order
// with buffers of the same length (collective calls); a rank that calls
// alone waits for the others until the implementation's timeout, if it
// has one. A Communicator is used by one goroutine at a time.
type Communicator interface {
	// Rank is this rank's number, 0 to Size()-1.
	Rank() int
	// Size is the number of ranks.
	Size() int
	// AllReduce replaces buf, on every rank, by the element-wise sum (or
	// mean) of the ranks' buffers. Every rank gets the same bits.
	AllReduce(buf []float32, op Op) error
	// Broadcast copies root's buf into the other ranks' buf.
	Broadcast(buf []float32, root int) error
	// Barrier returns when every rank has called it.
	Barrier() error
	// Close leaves the group; the communicator must not be used again.
	// Ranks waiting in a collective call of the group then fail with an
	// error wrapping ErrClosed rather than wait for ever.
	Close() error
}

// TensorCommunicator is a Communicator that also reduces tensors where they
// live, in place, without copying them to the host: the NCCL communicator
// does it on the GPU. Bucketer and DataParallel use it for device tensors.
type TensorCommunicator interface {
	Communicator
	// AllReduceTensors all-reduces each tensor in place, as one group of
	// collective calls.
	AllReduceTensors(ts []*tensor.Tensor, op Op) error
	// BroadcastTensors copies root's tensors into the others', in place.
	BroadcastTensors(ts []*tensor.Tensor, root int) error
}

var (
	// ErrClosed is wrapped by the errors of a communicator used after
	// Close, or of a collective call of a group that a rank left.
	ErrClosed = errors.New("dist: communicator closed")
	// ErrMismatch is wrapped by the errors of a collective call whose
	// ranks passed buffers of different lengths, different ops or roots.
	ErrMismatch = errors.New("dist: ranks disagree on a collective call")
	// ErrTimeout is wrapped by the errors of a call that waited for
	// another rank longer than the communicator's timeout.
	ErrTimeout = errors.New("dist: timed out waiting for a rank")
)

// chunk returns the bounds of chunk c of n elements cut into k nearly equal
// chunks (the first n%k one longer).
func chunk(n, k, c int) (lo, hi int) {
	q, r := n/k, n%k
	lo = c*q + min(c, r)
	hi = lo + q
	if c < r {
		hi++
	}
	return lo, hi
}

// checkRoot reports a root out of range.
func checkRoot(root, size int) error {
	if root < 0 || root >= size {
		return fmt.Errorf("dist: broadcast root %d of %d ranks: %w", root, size, ErrMismatch)
	}
	return nil
}

// checkOp reports an unknown Op.
func checkOp(op Op) error {
	if op != Sum && op != Mean {
		return fmt.Errorf("dist: unknown reduction %v", op)
	}
	return nil
}

// finish divides buf by n for Mean.
func finish(buf []float32, op Op, n int) {
	if op != Mean || n == 1 {
		return
	}
	k := float32(n)
	for i := range buf {
		buf[i] /= k
	}
}
