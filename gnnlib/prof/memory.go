package prof

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// heapMetric is the Go heap in live and not-yet-swept objects: what the
// program's allocations occupy, without the runtime's free spans.
const heapMetric = "/memory/classes/heap/objects:bytes"

// ErrNoDevice is returned by device-memory probes when no device is
// present; the CPU build's probe returns it always.
var ErrNoDevice = errors.New("prof: no device")

// DeviceMemory reports the device memory in use, in bytes, as the device
// backends registered with gnnlib/tensor count it (tensor.DeviceMemory:
// gnnlib/cuda counts the bytes its open devices' allocators hold). With
// no device open, or in the CPU build, it returns ErrNoDevice and
// MemoryProfile records no device curve.
func DeviceMemory() (uint64, error) {
	if n, ok := tensor.DeviceMemory(); ok {
		return n, nil
	}
	return 0, ErrNoDevice
}

// MemorySample is one sample of a memory profile.
type MemorySample struct {
	// T is the time since tracking started.
	T time.Duration
	// Heap is the Go heap in objects, in bytes.
	Heap uint64
	// Device is the device memory in use, in bytes (0 without a device).
	Device uint64
}

// MemoryMark marks the start of a phase of the tracked run.
type MemoryMark struct {
	T    time.Duration
	Name string
	// Live is the live heap at the mark, measured after a forced garbage
	// collection (MarkLive); 0 for a plain Mark.
	Live uint64
}

// MemoryProfile is the result of a memory tracking.
type MemoryProfile struct {
	Samples []MemorySample
	// Marks are the phase marks, in order; a phase lasts until the next
	// mark or the end.
	Marks []MemoryMark
	// Baseline is the heap at the start, Peak the largest heap sampled and
	// PeakAt when it was sampled.
	Baseline, Peak uint64
	PeakAt         time.Duration
	// DevicePeak is the largest device memory sampled; HasDevice tells
	// whether a device was sampled at all.
	DevicePeak uint64
	HasDevice  bool
	// Duration is the tracked time.
	Duration time.Duration
}

// PeakAbove returns Peak − Baseline: what the run added at its worst.
func (m *MemoryProfile) PeakAbove() uint64 {
	if m.Peak < m.Baseline {
		return 0
	}
	return m.Peak - m.Baseline
}

// String summarises the profile.
func (m *MemoryProfile) String() string {
	s := fmt.Sprintf("heap peak %s at %v (+%s over %s baseline), %d samples, %d marks",
		Bytes(m.Peak), round(m.PeakAt), Bytes(m.PeakAbove()), Bytes(m.Baseline), len(m.Samples), len(m.Marks))
	if m.HasDevice {
		s += fmt.Sprintf(", device peak %s", Bytes(m.DevicePeak))
	}
	return s
}

// Bytes formats a byte count with a binary unit: "64.0 MiB".
func Bytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}

// MemoryTracker samples memory in the background; see TrackMemory.
type MemoryTracker struct {
	mu      sync.Mutex
	start   time.Time
	prof    MemoryProfile
	sample  []metrics.Sample
	stop    chan struct{}
	done    chan struct{}
	stopped bool
}

// TrackMemory starts sampling the Go heap (runtime/metrics) and the
// device memory every interval (at least 100µs; 0 means 1ms) until Stop.
// Mark and Stop also take a sample, so short phases are not missed.
func TrackMemory(interval time.Duration) *MemoryTracker {
	if interval <= 0 {
		interval = time.Millisecond
	}
	interval = max(interval, 100*time.Microsecond)
	m := &MemoryTracker{
		start:  time.Now(),
		sample: []metrics.Sample{{Name: heapMetric}},
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	m.take()
	m.prof.Baseline = m.prof.Samples[0].Heap
	go m.loop(interval)
	return m
}

func (m *MemoryTracker) loop(interval time.Duration) {
	defer close(m.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.take()
		}
	}
}

// take records one sample.
func (m *MemoryTracker) take() {
	m.mu.Lock()
	defer m.mu.Unlock()
	metrics.Read(m.sample)
	s := MemorySample{T: time.Since(m.start)}
	if v := m.sample[0].Value; v.Kind() == metrics.KindUint64 {
		s.Heap = v.Uint64()
	}
	if d, err := DeviceMemory(); err == nil {
		s.Device = d
		m.prof.HasDevice = true
		m.prof.DevicePeak = max(m.prof.DevicePeak, d)
	}
	if s.Heap > m.prof.Peak {
		m.prof.Peak, m.prof.PeakAt = s.Heap, s.T
	}
	m.prof.Samples = append(m.prof.Samples, s)
}

// Mark starts a phase named name ("forward", "backward", "step").
func (m *MemoryTracker) Mark(name string) {
	m.take()
	m.mu.Lock()
	m.prof.Marks = append(m.prof.Marks, MemoryMark{T: time.Since(m.start), Name: name})
	m.mu.Unlock()
}

// MarkLive is Mark after a forced garbage collection, and records the
// live heap at the mark. Between collections the Go heap also holds
// garbage not yet collected, so its curve shows the collector's rhythm
// more than the program's; the live heap at each phase boundary shows
// what the program keeps: activations climbing through the forward pass
// and freed once the step drops the loss that holds them. The collection costs time (milliseconds
// for a heap of hundreds of MiB), which the phases' lengths include.
func (m *MemoryTracker) MarkLive(name string) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.take()
	m.mu.Lock()
	m.prof.Marks = append(m.prof.Marks, MemoryMark{T: time.Since(m.start), Name: name, Live: ms.HeapAlloc})
	m.mu.Unlock()
}

// Stop ends tracking and returns the profile; later calls return it again.
func (m *MemoryTracker) Stop() *MemoryProfile {
	m.mu.Lock()
	if m.stopped {
		defer m.mu.Unlock()
		return &m.prof
	}
	m.stopped = true
	m.mu.Unlock()
	close(m.stop)
	<-m.done
	m.take()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prof.Duration = time.Since(m.start)
	return &m.prof
}
