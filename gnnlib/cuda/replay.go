package cuda

import (
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// GraphReplay makes the device replay repeated launch sequences as CUDA
// graphs. A Cora-sized training epoch is launch-bound: tens of kernels of
// a few microseconds each, each launched by its own driver call after a
// round trip to the device goroutine. With GraphReplay on, kernel
// launches and fills are not sent to the device one by one but recorded,
// and the recorded segment goes to the device at the next call that
// waits for it or queues other work (a copy to the host, Synchronize, an
// allocation from the driver, an upload), all in one round trip. A
// segment whose sequence of kernels (and fill widths) was seen before
// runs as one instantiated CUDA graph (cuGraphLaunch), built the second
// time the sequence comes and reused after, its nodes' arguments updated
// in place where this run's differ (cuGraphExecKernelNodeSetParams: new
// buffers, a new dropout seed, Adam's step). So the choice is automatic:
// a training loop whose epochs repeat their shapes replays them as a
// graph from the third epoch it records on, and anything else launches kernel by
// kernel as before, as does a segment the driver refuses to build, update
// or launch as a graph. The work and its order are the eager launches'
// exactly, so results do not change; an error of a recorded launch is
// returned by the next call that waits, as with tune.AsyncLaunch.
// Device.Mapping and Device.ReplayStats count the replays. Measured on an
// H100 (BENCHMARKS.md, 2026-12-06 08:40, GEMMv2S): it takes the
// Cora-sized gnnlib/nn epochs (with nn.ReLUDropout) from 1.30-1.97 ms to
// 0.35-0.67 ms (GCN 0.35, GraphSAGE 0.42, GAT 0.55, GATv2 0.67), but
// adds 1.7-2.7 ms to the arxiv-sized ones (GCN 7.24 to 9.29 ms), where
// the kernels, not the launches, take the time; segments of 16 or 64
// launches (ReplaySegment) did not recover that (GCN 9.08 and 8.94 ms),
// so the overlap of host and device is not the whole cost. So
// GraphReplay forces it on (the environment variable GNNLAB_CUDA_GRAPHS=1
// sets it at start), and by default each device chooses for itself from
// the time its launches take (AutoReplay, autoreplay.go); set it before
// work is queued.
var GraphReplay = os.Getenv("GNNLAB_CUDA_GRAPHS") == "1"

// graphNode is one recorded launch (kernel set, with shared bytes of
// dynamic shared memory a block) or fill (kernel empty: n 32-bit words at
// dst set to v).
type graphNode struct {
	kernel      string
	grid, block [3]int
	shared      int
	args        []uint64
	dst         uintptr
	v           uint32
	n           int64
}

// same reports whether a and b launch with the same parameters.
func (a *graphNode) same(b *graphNode) bool {
	return a.kernel == b.kernel && a.grid == b.grid && a.block == b.block && a.shared == b.shared && slices.Equal(a.args, b.args) &&
		a.dst == b.dst && a.v == b.v && a.n == b.n
}

// graphExec is an instantiated CUDA graph of the driver.
type graphExec any

// minGraphNodes is the shortest segment worth a graph: shorter ones are
// launched node by node.
const minGraphNodes = 4

// maxPending bounds a segment: a longer one is sent to the device without
// waiting for a call that waits.
const maxPending = 4096

// ReplaySegment, when positive, sends the recorded segment to the device
// every ReplaySegment launches and fills, not only at the next call that
// waits: the device then starts on an epoch's first kernels while the
// host records the rest, as it does without GraphReplay, at the cost of
// one round trip (and one graph launch) per segment. A training loop's
// segments still repeat epoch after epoch (they are cut at the same
// launches), so each becomes a graph of its own. 0 cuts only at calls
// that wait, the default: on the H100 segments of 16 and 64 left the
// arxiv-sized epochs 0.4-2.7 ms slower than without GraphReplay and
// changed the Cora-sized ones by -26 to +14 % against whole-epoch
// segments (BENCHMARKS.md).
// GNNLAB_CUDA_GRAPH_SEGMENT sets it at start; set it before work is
// queued.
var ReplaySegment = envInt("GNNLAB_CUDA_GRAPH_SEGMENT", 0)

// envInt reads a non-negative integer from the environment variable name,
// def when it is unset or not such an integer.
func envInt(name string, def int) int {
	v, err := strconv.Atoi(os.Getenv(name))
	if err != nil || v < 0 {
		return def
	}
	return v
}

// maxGraphs bounds the instantiated graphs a device keeps.
const maxGraphs = 32

// recorder holds the segment being recorded; Device.rec.
type recorder struct {
	mu      sync.Mutex
	pending []graphNode
}

// replayer runs recorded segments on the device goroutine: as a graph
// when their sequence repeats, node by node otherwise.
type replayer struct {
	graphs map[uint64]*replayGraph
	seen   map[uint64]int
	// counters, read by Mapping on other goroutines
	segments, eagerNodes, replays, replayNodes, built, updates, failed atomic.Int64
}

type replayGraph struct {
	exec  graphExec
	nodes []graphNode
}

// signature hashes what a graph's nodes cannot change by an update: the
// sequence of kernels, and each fill's width.
func signature(nodes []graphNode) uint64 {
	h := fnv.New64a()
	for i := range nodes {
		n := &nodes[i]
		if n.kernel == "" {
			fmt.Fprintf(h, "fill %d;", n.n)
		} else {
			fmt.Fprintf(h, "%s/%d;", n.kernel, len(n.args))
		}
	}
	return h.Sum64()
}

// record adds a launch or fill to the segment, or returns false when
// GraphReplay is off (the caller then sends it at once).
func (d *Device) record(n graphNode) bool {
	if !d.replaying() {
		return false
	}
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return false // do reports ErrClosed
	}
	d.rec.mu.Lock()
	defer d.rec.mu.Unlock()
	d.rec.pending = append(d.rec.pending, n)
	if len(d.rec.pending) >= maxPending || ReplaySegment > 0 && len(d.rec.pending) >= ReplaySegment {
		nodes := d.rec.pending
		d.rec.pending = nil
		d.work <- func() {
			if err := d.replay.run(d.drv, nodes); err != nil && d.asyncErr == nil {
				d.asyncErr = err
			}
		}
	}
	return true
}

// doUnrecorded runs fn on the device goroutine and waits for it, without
// sending the segment being recorded first, as do does: fn must not
// touch memory that a recorded launch uses. An error of earlier work is
// left for the next call that waits.
func (d *Device) doUnrecorded(fn func()) error {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return ErrClosed
	}
	ch := make(chan struct{})
	d.rec.mu.Lock() // queued in recording order, as send queues
	d.work <- func() {
		fn()
		close(ch)
	}
	d.rec.mu.Unlock()
	<-ch
	return nil
}

// send queues fn on the device goroutine behind the recorded segment,
// which runs first; its error, if any, is fn's caller's (as posted work's
// is). The recorder's lock is held while queueing so that the segment and
// fn keep the order in which they were asked for.
func (d *Device) send(fn func()) {
	d.rec.mu.Lock()
	nodes := d.rec.pending
	d.rec.pending = nil
	if len(nodes) == 0 {
		d.work <- fn
	} else {
		d.work <- func() {
			if err := d.replay.run(d.drv, nodes); err != nil && d.asyncErr == nil {
				d.asyncErr = err
			}
			fn()
		}
	}
	d.rec.mu.Unlock()
}

// run sends a segment to the device; device goroutine only.
func (r *replayer) run(drv driver, nodes []graphNode) error {
	r.segments.Add(1)
	if len(nodes) < minGraphNodes {
		return r.eager(drv, nodes)
	}
	sig := signature(nodes)
	if g := r.graphs[sig]; g != nil && len(g.nodes) == len(nodes) {
		for i := range nodes {
			if nodes[i].same(&g.nodes[i]) {
				continue
			}
			if err := drv.graphSet(g.exec, i, &nodes[i]); err != nil {
				// The driver refused the update: forget the graph and
				// launch this segment node by node.
				r.failed.Add(1)
				drv.graphFree(g.exec)
				delete(r.graphs, sig)
				return r.eager(drv, nodes)
			}
			r.updates.Add(1)
			g.nodes[i] = nodes[i]
		}
		return r.launch(drv, sig, g.exec, nodes)
	}
	if r.seen == nil {
		r.seen, r.graphs = map[uint64]int{}, map[uint64]*replayGraph{}
	}
	if r.seen[sig]++; r.seen[sig] < 2 {
		return r.eager(drv, nodes)
	}
	if len(r.graphs) >= maxGraphs {
		for k, g := range r.graphs {
			drv.graphFree(g.exec)
			delete(r.graphs, k)
			break
		}
	}
	exec, err := drv.graphMake(nodes)
	if err != nil {
		r.failed.Add(1)
		return r.eager(drv, nodes)
	}
	r.built.Add(1)
	r.graphs[sig] = &replayGraph{exec: exec, nodes: slices.Clone(nodes)}
	return r.launch(drv, sig, exec, nodes)
}

// launch runs the graph of the segment nodes; if the driver refuses it,
// the graph is dropped and the nodes run one by one.
func (r *replayer) launch(drv driver, sig uint64, exec graphExec, nodes []graphNode) error {
	if err := drv.graphLaunch(exec); err != nil {
		r.failed.Add(1)
		drv.graphFree(exec)
		delete(r.graphs, sig)
		return r.eager(drv, nodes)
	}
	r.replays.Add(1)
	r.replayNodes.Add(int64(len(nodes)))
	return nil
}

// eager launches the nodes one by one.
func (r *replayer) eager(drv driver, nodes []graphNode) error {
	r.eagerNodes.Add(int64(len(nodes)))
	return runNodes(drv, nodes)
}

// runNodes makes drv's launch or fill call of each node, in order.
func runNodes(drv driver, nodes []graphNode) error {
	for i := range nodes {
		n := &nodes[i]
		var err error
		if n.kernel == "" {
			err = drv.memsetD32(n.dst, n.v, n.n)
		} else {
			err = drv.launch(n.kernel, n.grid, n.block, n.shared, n.args)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// free destroys the graphs; device goroutine only.
func (r *replayer) free(drv driver) {
	for k, g := range r.graphs {
		drv.graphFree(g.exec)
		delete(r.graphs, k)
	}
}

// ReplayStats counts what GraphReplay did on a device.
type ReplayStats struct {
	// Segments is the number of recorded segments sent to the device.
	Segments int64
	// Replays is how many of them ran as a CUDA graph, with ReplayNodes
	// kernels and fills in all; EagerNodes ran one by one.
	Replays, ReplayNodes, EagerNodes int64
	// Launches counts every kernel launch asked for, recorded or not.
	Launches int64
	// Built is the number of graphs instantiated, Updates the number of
	// nodes whose arguments were updated before a replay, Failed the
	// graphs the driver refused to build or update.
	Built, Updates, Failed int64
}

// ReplayStats returns the device's GraphReplay counters.
func (d *Device) ReplayStats() ReplayStats {
	r := &d.replay
	return ReplayStats{Launches: d.launches.Load(), Segments: r.segments.Load(), Replays: r.replays.Load(), ReplayNodes: r.replayNodes.Load(),
		EagerNodes: r.eagerNodes.Load(), Built: r.built.Load(), Updates: r.updates.Load(), Failed: r.failed.Load()}
}
