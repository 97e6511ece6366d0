package cuda

import "errors"

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
