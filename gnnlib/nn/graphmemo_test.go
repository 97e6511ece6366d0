package nn

import (
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

// TestGraphMemoLetsGraphsGo checks that the caches of values derived from
// graphs (withSelfLoops, edgesOf, normEdgeMap) keep a value while its
// graph lives and let both go once the graph is unreachable: they held
// the last eight graphs strongly before, which kept a dropped graph, its
// self-looped copy and that copy's device upload alive.
func TestGraphMemoLetsGraphsGo(t *testing.T) {
	g, err := graph.ErdosRenyiM(60, 300, 5)
	if err != nil {
		t.Fatal(err)
	}
	loops := withSelfLoops(g)
	if withSelfLoops(g) != loops {
		t.Fatal("withSelfLoops built the self-looped graph twice")
	}
	ev := edgesOf(g)
	if edgesOf(g) != ev {
		t.Fatal("edgesOf built the edge view twice")
	}
	normEdgeMap(g)
	wg, wl, we := weak.Make(g), weak.Make(loops), weak.Make(ev)
	g, loops, ev = nil, nil, nil
	gone := func() bool { return wg.Value() == nil && wl.Value() == nil && we.Value() == nil }
	for i := 0; i < 20 && !gone(); i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if wg.Value() != nil {
		t.Error("the graph stays alive after it was dropped: a cache holds it")
	}
	if wl.Value() != nil || we.Value() != nil {
		t.Errorf("values derived from a dropped graph stay: self-looped graph %v, edge view %v", wl.Value() != nil, we.Value() != nil)
	}
}
