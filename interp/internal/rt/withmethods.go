package rt

import "reflect"

// WithMethods reports whether t is a type of the session's cells with
// methods, or the underlying type of a named one: a value of it that went
// into a compiled interface reads its receiver from the slot it was made
// in (interp/internal/frame keeps such slots).
func (r *Runtime) WithMethods(t reflect.Type) bool { return r.ivals.withMethods(t) }

func (iv *ifaceValues) withMethods(t reflect.Type) bool {
	iv.mu.RLock()
	defer iv.mu.RUnlock()
	if _, ok := iv.m[t]; ok {
		return true
	}
	_, ok := iv.m[reflect.PointerTo(t)]
	return ok || len(iv.named[t]) > 0
}
