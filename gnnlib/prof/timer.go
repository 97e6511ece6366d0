package prof

import (
	"fmt"
	"slices"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/interrupt"
)

// Options controls Time.
type Options struct {
	// Warmup is the number of untimed runs before the timed ones: they fill
	// caches, fault in memory and let the allocator reach a steady state.
	Warmup int
	// Repeats is the number of timed runs; values below 1 mean 5.
	Repeats int
	// Sync, when set, is called after each run before the clock stops. It
	// is the seam for asynchronous devices: a GPU backend passes its
	// synchronise call so that the time covers the queued work.
	Sync func()
	// Device, when set, is the device the timed work runs on, e.g. the
	// tensor.Backend that tensor.Device("cuda") returns. If it records
	// events (an EventTimer, as gnnlib/cuda's Device does), each run is
	// timed on the device's own clock between an event before and one
	// after the run, and Stats.DeviceClock is set; otherwise, if it is a
	// Synchronizer, Time waits for it after each run before the host
	// clock stops. Sync, if also set, runs after each run as well.
	Device any
}

// Synchronizer is a device whose queued work can be waited for.
type Synchronizer interface {
	Synchronize() error
}

// EventTimer is a device that times its own work: StartTimer records an
// event on the device's queue, StopTimer records a second one, waits for
// it and returns the device time between the two.
type EventTimer interface {
	StartTimer() error
	StopTimer() (time.Duration, error)
}

// DefaultOptions are the options used when a caller has no better idea:
// two warm-up runs and ten timed runs.
var DefaultOptions = Options{Warmup: 2, Repeats: 10}

// Stats summarises the durations of repeated runs.
type Stats struct {
	Min, Median, Max, Mean time.Duration
	// N is the number of timed runs.
	N int
	// Runs holds each run's duration in the order they ran.
	Runs []time.Duration
	// DeviceClock reports that the runs were timed by device events
	// (Options.Device), not by the host clock.
	DeviceClock bool
}

// String formats s as "median 1.2ms (min 1.1ms, max 1.5ms, n=10)".
func (s Stats) String() string {
	return fmt.Sprintf("median %v (min %v, max %v, n=%d)", round(s.Median), round(s.Min), round(s.Max), s.N)
}

// round keeps three or four significant digits, which is all that wall
// times on a shared machine can claim.
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Microsecond)
	case d >= time.Microsecond:
		return d.Round(time.Nanosecond)
	}
	return d
}

// Time runs fn o.Warmup times untimed, then o.Repeats times timed, and
// returns the statistics of the timed runs. The median is the number to
// quote: the minimum flatters, the mean is pulled by the occasional
// garbage collection or scheduling hiccup.
func Time(fn func(), o Options) Stats {
	if o.Repeats < 1 {
		o.Repeats = 5
	}
	timer, _ := o.Device.(EventTimer)
	syncer, _ := o.Device.(Synchronizer)
	wait := func() {
		if syncer != nil {
			syncer.Synchronize()
		}
		if o.Sync != nil {
			o.Sync()
		}
	}
	for i := 0; i < o.Warmup && !interrupt.Raised(); i++ {
		fn()
		wait()
	}
	runs := make([]time.Duration, o.Repeats)
	events := timer != nil
	for i := range runs {
		if interrupt.Raised() {
			// The session's interrupt: the statistics of the runs done.
			runs = runs[:i]
			break
		}
		if events {
			// Device events time the queued kernels; a device that
			// fails to record them falls back to the host clock.
			if err := timer.StartTimer(); err == nil {
				fn()
				if d, err := timer.StopTimer(); err == nil {
					if o.Sync != nil {
						o.Sync()
					}
					runs[i] = d
					continue
				}
			}
			events = false
		}
		start := time.Now()
		fn()
		wait()
		runs[i] = time.Since(start)
	}
	s := Summarize(runs)
	s.DeviceClock = events
	return s
}

// Summarize computes the statistics of durations measured elsewhere.
func Summarize(runs []time.Duration) Stats {
	s := Stats{N: len(runs), Runs: slices.Clone(runs)}
	if len(runs) == 0 {
		return s
	}
	sorted := slices.Clone(runs)
	slices.Sort(sorted)
	s.Min, s.Max = sorted[0], sorted[len(sorted)-1]
	if n := len(sorted); n%2 == 1 {
		s.Median = sorted[n/2]
	} else {
		s.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	var sum time.Duration
	for _, d := range runs {
		sum += d
	}
	s.Mean = sum / time.Duration(len(runs))
	return s
}
