package cuda

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// AutoReplay lets each device choose GraphReplay for itself from the time
// its launches take (replayChooser): it records and replays while the
// spans between the calls that wait for the device (a copy to the host,
// Synchronize) take under replayOnPerLaunch per kernel launch, which is a
// launch-bound loop, and launches kernel by kernel again once they take
// over replayOffPerLaunch, where the kernels take the time and recording
// only delays them. It is on by default, and unless the environment
// variable GNNLAB_CUDA_GRAPHS is set to something other than "auto"
// (GNNLAB_CUDA_GRAPHS=0 launches kernel by kernel, =1 forces replay on,
// GraphReplay). On an H100 (2026-12-06, gnnbench's autoreplay part) its
// epochs took 0.93-1.12x of the better forced mode's, Cora-sized and
// arxiv-sized (TestAutoReplayEpochs checks that it replays the
// launch-bound ones). Set it before work is queued; GraphReplay true
// overrides it.
//
// The thresholds come from the H100 run of BENCHMARKS.md (2026-12-06
// 08:40): kernel by kernel, the Cora-sized gnnlib/nn epochs took 41-77 µs
// a launch (GCN 1.30 ms for 30 launches ... GraphSAGE 2.45 ms for 32),
// which replay took to 11-20 µs; the arxiv-sized ones 230-340 µs (GCN
// 7.24 ms for 30, GATv2 17.1 ms for 52), which replay made 1.7-2.7 ms
// slower.
var AutoReplay = autoReplayFromEnv(os.Getenv("GNNLAB_CUDA_GRAPHS"))

// autoReplayFromEnv reads GNNLAB_CUDA_GRAPHS: unset or "auto" lets the
// device choose; "0" (or "off", "false") and "1" fix the mode.
func autoReplayFromEnv(v string) bool {
	switch v {
	case "", "auto":
		return true
	}
	return false
}

const (
	// replayOnPerLaunch and replayOffPerLaunch are the time per launch
	// under which the automatic choice starts replaying and over which
	// it stops (the gap keeps it from flapping).
	replayOnPerLaunch  = 100 * time.Microsecond
	replayOffPerLaunch = 160 * time.Microsecond
	// replaySpans is how many spans in a row must agree before the
	// choice changes, and replayMinLaunches the fewest launches a span
	// must hold to count (a lone copy to the host says nothing of a
	// loop).
	replaySpans       = 3
	replayMinLaunches = 8
)

// replayChooser is the automatic choice of GraphReplay on one device: it
// is told of every span between two calls that waited for the device (the
// launches asked for in it and the host time it took, the wait included)
// and changes its choice when replaySpans spans of at least
// replayMinLaunches launches in a row agree.
type replayChooser struct {
	mu     sync.Mutex
	on     bool
	recent []time.Duration // per launch, the last qualifying spans
	// switches counts the changes of choice.
	switches int
	// lastLaunches and lastWait are where the current span began.
	lastLaunches int64
	lastWait     time.Time
}

// observe takes a span of n launches that took dt and returns the choice.
func (c *replayChooser) observe(n int64, dt time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n < replayMinLaunches {
		return c.on
	}
	per := dt / time.Duration(n)
	c.recent = append(c.recent, per)
	if len(c.recent) > replaySpans {
		c.recent = c.recent[1:]
	}
	if len(c.recent) < replaySpans {
		return c.on
	}
	fast, slow := true, true
	for _, p := range c.recent {
		fast = fast && p < replayOnPerLaunch
		slow = slow && p > replayOffPerLaunch
	}
	if !c.on && fast || c.on && slow {
		c.on = !c.on
		c.switches++
	}
	return c.on
}

// describe says what the choice is and why, for Mapping.
func (c *replayChooser) describe() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	why := fmt.Sprintf("no span of %d or more launches between waits yet", replayMinLaunches)
	if len(c.recent) > 0 {
		why = fmt.Sprintf("the last %d spans between waits took %s a launch", len(c.recent), perList(c.recent))
	}
	rule := fmt.Sprintf("replay under %v a launch over %d spans, launch one by one over %v", replayOnPerLaunch, replaySpans, replayOffPerLaunch)
	return fmt.Sprintf("chosen automatically: %s; %s; changed %d times; GNNLAB_CUDA_GRAPHS=1 forces replay on", why, rule, c.switches)
}

func perList(ds []time.Duration) string {
	s := ""
	for i, d := range ds {
		if i > 0 {
			s += ", "
		}
		s += d.Round(time.Microsecond / 10).String()
	}
	return s
}

// replaying reports whether d records launches now: GraphReplay forced on,
// or chosen automatically.
func (d *Device) replaying() bool {
	if GraphReplay {
		return true
	}
	if !AutoReplay {
		return false
	}
	d.chooser.mu.Lock()
	on := d.chooser.on
	d.chooser.mu.Unlock()
	return on
}

// waited tells the automatic choice that a call that waits for the device
// has returned: the span since the previous one ends now.
func (d *Device) waited() {
	if !AutoReplay || GraphReplay {
		return
	}
	now := d.now()
	n := d.launches.Load()
	c := &d.chooser
	c.mu.Lock()
	start, from := c.lastWait, c.lastLaunches
	c.lastWait, c.lastLaunches = now, n
	c.mu.Unlock()
	if start.IsZero() {
		return
	}
	c.observe(n-from, now.Sub(start))
}

// now is the clock of the automatic choice (a test's, when set).
func (d *Device) now() time.Time {
	if d.clock != nil {
		return d.clock()
	}
	return time.Now()
}
