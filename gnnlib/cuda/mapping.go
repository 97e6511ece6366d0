package cuda

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"weak"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// graphList tracks the graphs on a device, weakly, for Mapping: a graph
// leaves it when freed or collected.
type graphList struct {
	mu sync.Mutex
	m  map[weak.Pointer[Graph]]struct{}
}

func (l *graphList) add(g *Graph) {
	k := weak.Make(g)
	l.mu.Lock()
	if l.m == nil {
		l.m = map[weak.Pointer[Graph]]struct{}{}
	}
	l.m[k] = struct{}{}
	l.mu.Unlock()
	runtime.AddCleanup(g, l.remove, k)
}

func (l *graphList) remove(k weak.Pointer[Graph]) {
	l.mu.Lock()
	delete(l.m, k)
	l.mu.Unlock()
}

// live returns the graphs still on the device, largest first.
func (l *graphList) live() []*Graph {
	l.mu.Lock()
	var gs []*Graph
	for k := range l.m {
		if g := k.Value(); g != nil {
			gs = append(gs, g)
		}
	}
	l.mu.Unlock()
	slices.SortFunc(gs, func(a, b *Graph) int { return b.edges - a.edges })
	return gs
}

// Mapping describes how the device maps work onto the GPU now: the
// attention kernels' choice per graph on the device (a lane group per
// row, or heavy rows split into edge tiles, from the degrees recorded at
// upload), the GATv2 backward mode, the GEMM kernel, how kernels are
// launched (GraphReplay forced on, or AutoReplay's choice with the times
// per launch it was made from) and how many have been, and the label sets
// CrossEntropy keeps on the device. The session's %gpu prints it.
func (d *Device) Mapping() string {
	var b strings.Builder
	split := "off: one lane group per row, whatever its degree"
	if SplitHeavyRows {
		split = fmt.Sprintf("degree-aware: rows over %d edges split into %d-edge tiles, merged per row", heavyTile, heavyTile)
	}
	fmt.Fprintf(&b, "attention: %s (cuda.SplitHeavyRows)\n", split)
	mode := map[GATv2Backward]string{GATv2Auto: "auto (edges saved when they take at most 1 GiB, always with dropout)", GATv2Save: "save edges", GATv2Recompute: "recompute"}[GATv2BackwardMode]
	if mode == "" {
		mode = fmt.Sprint(GATv2BackwardMode)
	}
	fmt.Fprintf(&b, "GATv2 backward: %s\n", mode)
	fmt.Fprintf(&b, "GEMM kernel: %s\n", tune.GEMM)
	how := "each a round trip to the device goroutine"
	if tune.AsyncLaunch {
		how = "posted without waiting"
	}
	switch {
	case GraphReplay:
		how = "recorded, repeated sequences replayed as CUDA graphs (cuda.GraphReplay, forced on)"
	case AutoReplay && d.replaying():
		how = "recorded, repeated sequences replayed as CUDA graphs (" + d.chooser.describe() + ")"
	case AutoReplay:
		how += " (" + d.chooser.describe() + ")"
	default:
		how += " (automatic choice off: cuda.AutoReplay is false or GNNLAB_CUDA_GRAPHS=0)"
	}
	fmt.Fprintf(&b, "launches: %s; %d so far\n", how, d.launches.Load())
	if st := d.ReplayStats(); st.Segments > 0 {
		fmt.Fprintf(&b, "graph replay: %d segments, %d replayed as graphs (%d kernels and fills, %d arguments updated), %d launched one by one; %d graphs built, %d refused\n",
			st.Segments, st.Replays, st.ReplayNodes, st.Updates, st.EagerNodes, st.Built, st.Failed)
	}
	fmt.Fprintf(&b, "CrossEntropy label sets on the device: %d\n", d.labels.len())
	gs := d.graphList.live()
	fmt.Fprintf(&b, "graphs on the device: %d\n", len(gs))
	for i, g := range gs {
		if i == 8 {
			fmt.Fprintf(&b, "  and %d more\n", len(gs)-i)
			break
		}
		fmt.Fprintf(&b, "  %d nodes, %d edges; by destination: %v; by source: %v\n", g.n, g.edges, g.in, g.out)
	}
	return b.String()
}
