// Package contract is where gnnlib/tensor and gnnlib/tensor/backend meet
// without an import cycle (backend imports tensor, so tensor cannot
// import it): the one registry of device kinds, and the plumbing
// functions of gnnlib/tensor that only backend exports, set by tensor's
// init as values of their own function types and asserted to them by
// backend.
package contract

import (
	"slices"
	"sync"
)

// Driver is one registered device kind. Open returns a tensor.Backend (as
// any); InUse, which may be nil, counts the bytes its open devices hold.
type Driver struct {
	Open  func() (any, error)
	InUse func() (uint64, error)
}

var registry struct {
	sync.Mutex
	drivers map[string]Driver
}

// Register records d under name. A nil field of d keeps the one
// registered before.
func Register(name string, d Driver) {
	registry.Lock()
	defer registry.Unlock()
	if registry.drivers == nil {
		registry.drivers = map[string]Driver{}
	}
	old := registry.drivers[name]
	if d.Open == nil {
		d.Open = old.Open
	}
	if d.InUse == nil {
		d.InUse = old.InUse
	}
	registry.drivers[name] = d
}

// Lookup returns the driver registered under name and the sorted names of
// the kinds that can be opened.
func Lookup(name string) (d Driver, ok bool, known []string) {
	registry.Lock()
	defer registry.Unlock()
	for k, d := range registry.drivers {
		if d.Open != nil {
			known = append(known, k)
		}
	}
	slices.Sort(known)
	d, ok = registry.drivers[name]
	return d, ok && d.Open != nil, known
}

// Counters returns the InUse functions of the registered kinds.
func Counters() []func() (uint64, error) {
	registry.Lock()
	defer registry.Unlock()
	var fs []func() (uint64, error)
	for _, d := range registry.drivers {
		if d.InUse != nil {
			fs = append(fs, d.InUse)
		}
	}
	return fs
}

// The plumbing of gnnlib/tensor that gnnlib/tensor/backend exports, set
// by tensor's init (see tensor's hooks.go for their types).
var (
	NewOp       any // func(start time.Time, name string, edges int, out *Tensor, inputs []*Tensor, backward BackwardFunc) *Tensor
	OpStart     any // func() time.Time
	FromStorage any // func(s Storage, shape ...int) *Tensor
	SetOpHook   any // func(h func(OpEvent)) (restore func())
	OwnsGrad    any // func(g *Tensor) bool
)
