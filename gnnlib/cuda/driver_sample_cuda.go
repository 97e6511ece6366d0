//go:build cuda

package cuda

import (
	"fmt"
	"sync"
	"unsafe"

	"gorgonia.org/cu"
)

// The cuDriver's asyncDownloader (sample.go): copies to the host that do
// not wait, and events that mark a point of the stream, polled from the
// device goroutine, so that the sampler's download holds it for no wait.

// sampleMarks holds the events that mark made, by handle, until unmark
// destroys them (device goroutines only, under mu since each device has
// its own; an event belongs to its device's context, so none is kept
// for another).
var sampleMarks struct {
	mu   sync.Mutex
	next uintptr
	live map[uintptr]cu.Event
}

func (d *cuDriver) dtohAsync(dst unsafe.Pointer, src uintptr, n int64) error {
	return cu.MemcpyDtoHAsync(dst, cu.DevicePtr(src), n, d.stream)
}

func (d *cuDriver) mark() (uintptr, error) {
	m := &sampleMarks
	ev, err := cu.MakeEvent(cu.DisableTiming)
	if err != nil {
		return 0, fmt.Errorf("gnnlib/cuda: create event: %w", err)
	}
	if err := ev.Record(d.stream); err != nil {
		_ = cu.DestroyEvent(&ev)
		return 0, fmt.Errorf("gnnlib/cuda: record event: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.live == nil {
		m.live = map[uintptr]cu.Event{}
	}
	m.next++
	m.live[m.next] = ev
	return m.next, nil
}

func (d *cuDriver) marked(h uintptr) (bool, error) {
	m := &sampleMarks
	m.mu.Lock()
	ev, ok := m.live[h]
	m.mu.Unlock()
	if !ok {
		return false, fmt.Errorf("gnnlib/cuda: no event %d", h)
	}
	switch err := ev.Query(); err {
	case nil:
		return true, nil
	case cu.NotReady:
		return false, nil
	default:
		return false, err
	}
}

func (d *cuDriver) unmark(h uintptr) {
	m := &sampleMarks
	m.mu.Lock()
	defer m.mu.Unlock()
	if ev, ok := m.live[h]; ok {
		delete(m.live, h)
		_ = cu.DestroyEvent(&ev)
	}
}
