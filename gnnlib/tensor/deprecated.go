package tensor

// The plumbing that only backend packages and gnnlib/nn, gnnlib/prof and
// gnnlib/quant call, kept here as deprecated forwarders while other
// branches still call these names; its home is gnnlib/tensor/backend.
// Once no caller is left, this file goes (and tensor's own calls of
// OpStart and NewOpSince become opStart and newOp), so that notebook
// completion no longer offers them.

import (
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/tensor/internal/contract"
)

// SetOpHook is backend.SetOpHook.
//
// Deprecated: plumbing for profilers; call backend.SetOpHook
// (gnnlib/tensor/backend), or use gnnlib/prof.
func SetOpHook(h func(OpEvent)) (restore func()) { return setOpHook(h) }

// OpStart is backend.OpStart.
//
// Deprecated: plumbing for backend packages; call backend.OpStart
// (gnnlib/tensor/backend).
func OpStart() time.Time { return opStart() }

// FromStorage is backend.FromStorage.
//
// Deprecated: plumbing for backend packages; call backend.FromStorage
// (gnnlib/tensor/backend).
func FromStorage(s Storage, shape ...int) *Tensor { return fromStorage(s, shape...) }

// RegisterBackend registers how to open the device kind name.
//
// Deprecated: call backend.Register (gnnlib/tensor/backend), which
// registers the kind's memory counter in the same call.
func RegisterBackend(name string, open func() (Backend, error)) {
	contract.Register(name, contract.Driver{Open: func() (any, error) {
		b, err := open()
		if b == nil {
			return nil, err // not a nil Backend in a non-nil any
		}
		return b, err
	}})
}

// RegisterMemory gives the device kind name a counter of the bytes its
// open devices hold.
//
// Deprecated: call backend.Register (gnnlib/tensor/backend) with the
// counter as the Driver's InUse.
func RegisterMemory(name string, inUse func() (uint64, error)) {
	contract.Register(name, contract.Driver{InUse: inUse})
}

// NewOpSince is NewOp for an op that started at start (from OpStart), so
// that the op hook can time it.
//
// Deprecated: plumbing for backend packages; call backend.NewOpSince
// (gnnlib/tensor/backend).
func NewOpSince(start time.Time, name string, out *Tensor, inputs []*Tensor, backward BackwardFunc) *Tensor {
	return newOp(start, name, 0, out, inputs, backward)
}

// NewGraphOpSince is NewOpSince for an op over the edges of a graph (an
// aggregation, an SpMM), whose work grows with the edges rather than with
// its tensors' shapes: the op hook's events, forward and backward, carry
// edges, so that a profiler can count FLOPs and bytes.
//
// Deprecated: plumbing for backend packages; call backend.NewGraphOpSince
// (gnnlib/tensor/backend).
func NewGraphOpSince(start time.Time, name string, edges int, out *Tensor, inputs []*Tensor, backward BackwardFunc) *Tensor {
	return newOp(start, name, edges, out, inputs, backward)
}
