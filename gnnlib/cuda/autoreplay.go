package cuda

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"time"
)

// AutoReplay lets each device choose GraphReplay for itself from the time
// its launches take (replayChooser): it records and replays while the
// spans between the calls that wait for the device (a copy to the host,
// Synchronize) take under replayOnPerLaunch per kernel launch, which is a
// launch-bound loop, and launches kernel by kernel again once they take
// over replayOffPerLaunch, where the kernels take the time and recording
// only delays them, or once the replayed spans are no faster than those
// launched one by one before them (a loop whose launches change every
// pass). It launches one by one while sampled blocks come to the device
// (SampleBlocks, UploadBlocks): no mini-batch repeats another's shapes,
// and the loader's waits cut the training step's spans and segments at
// random points (replayChooser.blocksSeen). It is on by default, and unless
// the environment variable GNNLAB_CUDA_GRAPHS is set to something other
// than "auto" (GNNLAB_CUDA_GRAPHS=0 launches kernel by kernel, =1 forces
// replay on, GraphReplay). On an H100 (2026-12-06, gnnbench's autoreplay part) its
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
	// replayRetrySpans is how many qualifying spans launched one by one
	// must pass before replay is tried again once it lost to launching
	// one by one (replayChooser.eager).
	replayRetrySpans = 64
)

// replayChooser is the automatic choice of GraphReplay on one device: it
// is told of every span between two calls that waited for the device (the
// launches asked for in it and the host time it took, the wait included)
// and changes its choice when replaySpans spans of at least
// replayMinLaunches launches in a row agree.
//
// It also checks that replay pays: when it turns replay on, it keeps the
// median time a launch of the spans that made it (eager); once the
// replayed spans after the first (which records) give replaySpans more,
// and their median is no faster, it launches one by one again and does
// not try replay for replayRetrySpans spans. A loop whose launches
// change from one pass to the next (sampled mini-batches: other shapes,
// other addresses every step) pays for recording, updating and building
// graphs without replaying any: on an H200 (2026-12-07) a products-sized
// sampled GraphSAGE step took 4.25 ms replayed against 3.75 launched one
// by one, 34 against 30 µs a launch, both under the on threshold.
type replayChooser struct {
	mu     sync.Mutex
	on     bool
	recent []time.Duration // per launch, the last qualifying spans
	// eager is the median time a launch of the spans that last turned
	// replay on (0: not known, as when it starts on, or replay has
	// paid); replayed holds the qualifying spans since then, the first
	// one left out, until there are replaySpans of them.
	eager    time.Duration
	replayed []time.Duration
	skipped  bool
	// lost counts down the spans before replay may be tried again after
	// it was no faster; lostAt is what it was measured at, for describe.
	lost           int
	lostAt, lostTo time.Duration
	// blocks counts down the spans before replay may be tried again
	// after blocks were sampled on the device or uploaded (blocksSeen);
	// sampling counts those calls, for describe.
	blocks   int
	sampling int
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
	if c.on && c.eager > 0 {
		if !c.skipped {
			c.skipped = true // the span that recorded
		} else if c.replayed = append(c.replayed, per); len(c.replayed) == replaySpans {
			if m := median(c.replayed); m >= c.eager {
				c.lost, c.lostAt, c.lostTo = replayRetrySpans, m, c.eager
				c.turn(false)
				return c.on
			}
			c.eager = 0 // replay paid: no more comparisons until it is turned on again
		}
	}
	if !c.on && c.lost > 0 {
		c.lost--
	}
	if c.blocks > 0 {
		c.blocks--
	}
	fast, slow := true, true
	for _, p := range c.recent {
		fast = fast && p < replayOnPerLaunch
		slow = slow && p > replayOffPerLaunch
	}
	switch {
	case !c.on && fast && c.lost == 0 && c.blocks == 0:
		c.eager = median(c.recent)
		c.turn(true)
	case c.on && slow:
		c.turn(false)
	}
	return c.on
}

// blocksSeen tells the choice that sampled blocks came to the device
// (Device.SampleBlocks, UploadBlocks): it launches one by one, and keeps
// doing so until replayRetrySpans spans have passed since the last such
// call. Every mini-batch has other shapes and other buffers, so no
// recorded sequence repeats, and the loader's goroutines, whose waits end
// the spans and send the segment being recorded, cut the training step
// at random points: on an H200 (2026-12-07) the products-sized sampled
// GraphSAGE step took 4.25 ms a batch replayed against 3.97 launched one
// by one, 3.75 with everything posted; on an H100 the same step alone
// took 4.98 ms replayed against 3.02 (TestSampledStepKernelTimes), and
// in gnnbench's loop the chooser kept replaying (3.8 of 6.8 segments a
// batch, 48 argument updates and 0.75 graphs built a batch), its spans
// cut by the loader's waits.
func (c *replayChooser) blocksSeen() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.blocks = replayRetrySpans
	c.sampling++
	if c.on {
		c.turn(false)
	}
}

// turn sets the choice and starts the count of replayed spans afresh.
func (c *replayChooser) turn(on bool) {
	c.on = on
	c.switches++
	c.replayed, c.skipped = c.replayed[:0], false
}

// median returns the middle value of ds (the upper one of an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// describe says what the choice is and why, for Mapping.
func (c *replayChooser) describe() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	why := fmt.Sprintf("no span of %d or more launches between waits yet", replayMinLaunches)
	if len(c.recent) > 0 {
		why = fmt.Sprintf("the last %d spans between waits took %s a launch", len(c.recent), perList(c.recent))
	}
	rule := fmt.Sprintf("replay under %v a launch over %d spans, launch one by one over %v or when replay is no faster", replayOnPerLaunch, replaySpans, replayOffPerLaunch)
	if c.lostAt > 0 {
		rule += fmt.Sprintf(" (replayed spans last took %s a launch against %s one by one", c.lostAt.Round(time.Microsecond/10), c.lostTo.Round(time.Microsecond/10))
		if c.lost > 0 {
			rule += fmt.Sprintf("; replay tried again in %d spans", c.lost)
		}
		rule += ")"
	}
	if c.sampling > 0 {
		rule += fmt.Sprintf("; one by one while sampled blocks come to the device (%d so far", c.sampling)
		if c.blocks > 0 {
			rule += fmt.Sprintf("; replay tried again in %d spans unless more come", c.blocks)
		}
		rule += ")"
	}
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

// blocksSeen tells the automatic choice that sampled blocks came to d
// (replayChooser.blocksSeen).
func (d *Device) blocksSeen() {
	if AutoReplay && !GraphReplay {
		d.chooser.blocksSeen()
	}
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
