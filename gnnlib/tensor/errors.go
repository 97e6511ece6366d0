package tensor

import (
	"errors"
	"fmt"
)

// ShapeError is the value ops panic with when their operands' shapes do not
// fit (a programmer error, following gonum's convention). The notebook
// session recovers it and reports it as a clean error naming the op and both
// shapes. Recover it with errors.As.
type ShapeError struct {
	Op  string // the op that failed, e.g. "MatMul"
	A   []int  // the first operand's shape
	B   []int  // the second operand's shape (or the requested shape); may be nil
	Msg string // what is wrong; "shape mismatch" when empty
}

func (e *ShapeError) Error() string {
	msg := e.Msg
	if msg == "" {
		msg = "shape mismatch"
	}
	if e.B == nil {
		return fmt.Sprintf("tensor: %s: %s: %v", e.Op, msg, e.A)
	}
	return fmt.Sprintf("tensor: %s: %s: %v and %v", e.Op, msg, e.A, e.B)
}

// ErrSparse is wrapped by the panic value of an op that does not support
// sparse tensors. Call ToDense first.
var ErrSparse = errors.New("tensor: op not supported on a sparse tensor; call ToDense first")

// ErrIndex is wrapped by the panic value of an op given an out-of-range row
// index or label.
var ErrIndex = errors.New("tensor: index out of range")

func (t *Tensor) mustDense(op string) {
	if t.dev != nil {
		t.notOnDevice(op)
	}
	if t.sp != nil {
		panic(fmt.Errorf("tensor: %s: %w", op, ErrSparse))
	}
}

func indexPanic(op string, i, n int) {
	panic(fmt.Errorf("tensor: %s: index %d not in [0, %d): %w", op, i, n, ErrIndex))
}
