package widgets

// listeners are the functions a control calls when its value changes: the
// OnChange functions, given the new value, and the watchers Interact adds.
// The control's model lock guards them.
type listeners[T any] struct {
	onChange []func(T)
	watchers []func()
}

// change sets *cur to k under m's lock, records k in the state under key
// and returns the calls the change makes (the OnChange functions of l get
// v), sending the new state to the frontend when send is set; it returns
// nil and does nothing if *cur is k already.
func change[K comparable, T any](m *model, cur *K, k K, key string, l *listeners[T], v T, send bool) []func() {
	m.mu.Lock()
	if *cur == k {
		m.mu.Unlock()
		return nil
	}
	*cur = k
	m.state[key] = k
	calls := make([]func(), 0, len(l.onChange)+len(l.watchers))
	for _, f := range l.onChange {
		calls = append(calls, func() { f(v) })
	}
	calls = append(calls, l.watchers...)
	m.mu.Unlock()
	if send {
		m.set(map[string]any{key: k})
	}
	return calls
}

// add adds f to l's OnChange functions under m's lock.
func (l *listeners[T]) add(m *model, f func(T)) {
	m.mu.Lock()
	l.onChange = append(l.onChange, f)
	m.mu.Unlock()
}

// watch adds f to l's watchers under m's lock.
func (l *listeners[T]) watch(m *model, f func()) {
	m.mu.Lock()
	l.watchers = append(l.watchers, f)
	m.mu.Unlock()
}
