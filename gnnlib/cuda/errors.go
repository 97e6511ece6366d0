package cuda

import (
	"errors"
	"fmt"
)

// ErrNoCUDA is returned by Open in a binary built without the cuda tag.
var ErrNoCUDA = errors.New("gnnlib/cuda: built without CUDA support; rebuild with -tags cuda (make cuda)")

// ErrNoDevice is wrapped by the error Open returns when the binary has CUDA
// support but the driver reports no usable device; the message says what the
// driver said.
var ErrNoDevice = errors.New("gnnlib/cuda: no CUDA device")

// ErrShape is wrapped by errors about operands of mismatched shapes.
var ErrShape = errors.New("gnnlib/cuda: shape mismatch")

// ErrClosed is returned by operations on a Device after Close.
var ErrClosed = errors.New("gnnlib/cuda: device closed")

// errSharedMemory is a launch that asks for more shared memory a block
// than the device allows.
var errSharedMemory = errors.New("more shared memory than the device allows a block")

// errBackwardTwice is returned by a device backward pass run a second time
// after it released its saved tensors.
var errBackwardTwice = errors.New("gnnlib/cuda: backward through the same fused attention twice (its saved tensors were released after the first)")

func shapeErr(op string, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrShape, op, fmt.Sprintf(format, args...))
}
