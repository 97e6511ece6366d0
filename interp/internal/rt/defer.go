package rt

import "sync"

// deferList holds the deferred calls of the running cell.
type deferList struct {
	mu    sync.Mutex
	calls []func()
}

func (d *deferList) push(f func()) {
	d.mu.Lock()
	d.calls = append(d.calls, f)
	d.mu.Unlock()
}

func (d *deferList) take() []func() {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.calls
	d.calls = nil
	return c
}

// deferPanic holds the newest panic that a guarded deferred literal of
// one call of a function raised and did not recover, as yaegi's recover
// gave it.
type deferPanic struct {
	iv  *ifaceValues
	val any
	set bool
}

// newDeferPanic is __gnnlab_rt.NewPanics.
func (iv *ifaceValues) newDeferPanic() *deferPanic { return &deferPanic{iv: iv} }

func (p *deferPanic) take() any {
	v := p.val
	p.val, p.set = nil, false
	return v
}

// Catch keeps v, a deferred literal's panic (nil: none).
func (p *deferPanic) Catch(v any) {
	if v != nil {
		p.val, p.set = v, true
	}
}

// Forward keeps the panic of a deferred literal that has guarded
// deferred calls of its own: the newest of theirs (in inner) or its own.
func (p *deferPanic) Forward(inner *deferPanic, v any) {
	if inner.set {
		v = inner.take()
	}
	p.Catch(v)
}

// Recovered is recover() in a guarded literal: the newest panic, which
// is a deferred literal's if one raised it; v is yaegi's recover, whose
// call also ends the function's own panic, as Go ends a panic that a
// later one interrupted when that one is recovered.
func (p *deferPanic) Recovered(v any) any {
	if p.set {
		v = p.take()
	}
	return p.iv.recovered(v)
}

// End panics with the panic that no deferred call recovered.
func (p *deferPanic) End() {
	if p.set {
		panic(p.take())
	}
}
