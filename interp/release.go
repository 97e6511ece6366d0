package interp

import (
	"reflect"

	"github.com/gnnlab/gnnlab/interp/internal/frame"
)

// What the interpreter keeps per evaluation, and what the session lets go:
// interp/internal/frame's doc says, and reaches the unexported parts of
// yaegi that the session trims. Here is the session's bookkeeping of it.

// releaseTemps resets the slots of the global frame from s.released on
// that hold no named global, and moves s.released to the end. It runs
// after each cell.
func (s *Session) releaseTemps() {
	data, mu, ok := frame.Data(s.i)
	if !ok {
		return
	}
	named := frame.Addrs(globalsOf(s.i))
	// yaegi can leave the frame's mutex held after a panic it reported
	// (%timeit panic("x")): then leave the slots for a later cell.
	if !mu.TryLock() {
		return
	}
	defer mu.Unlock()
	d := *data
	if s.releasedIn != s.i {
		s.released, s.releasedIn = 0, s.i
		// A rebuilt interpreter imported the session's packages again.
		s.keepSlots = s.keepSlots || s.importsModules()
	}
	// The package-level variables of a package interpreted from source
	// (%go get, modules.go) take slots of the global frame when it is
	// imported, among the cell's temporaries: leave that cell's slots.
	if s.unstopped || s.keepSlots { // its code may still use its slots: leave them
		s.released, s.unstopped, s.keepSlots = len(d), false, false
		return
	}
	frame.DropRoots(s.i)
	frame.DropScopeChildren(s.i)
	frame.Forget(s.i, s.made)
	s.made = s.made[:0]
	for j := s.released; j < len(d); j++ {
		v := d[j]
		if !v.IsValid() || v.CanAddr() && named[v.UnsafeAddr()] {
			continue
		}
		d[j] = reflect.Zero(v.Type())
	}
	s.released = len(d)
}
