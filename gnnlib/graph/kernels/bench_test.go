package kernels

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

var (
	benchOnce  sync.Once
	benchGraph *graph.Graph
	benchRCM   *graph.Graph
)

// benchGraphs returns a 100k-node G(n, m) graph with 1.6M directed edges,
// as generated (random ids) and reordered by RCM.
func benchGraphs(b *testing.B) (*graph.Graph, *graph.Graph) {
	benchOnce.Do(func() {
		g, err := graph.ErdosRenyiM(100_000, 800_000, 1)
		if err != nil {
			panic(err)
		}
		benchGraph = g
		benchRCM, _ = g.Permute(g.RCM())
	})
	return benchGraph, benchRCM
}

// BenchmarkSpMM reports edges/s and the memory traffic in GB/s, counting
// one read of a source row and its index per edge and one write per row.
func BenchmarkSpMM(b *testing.B) {
	g0, r := benchGraphs(b)
	for _, order := range []struct {
		name string
		g    *graph.Graph
	}{{"random", g0}, {"rcm", r}} {
		for _, f := range []int{16, 64} {
			g := order.g
			b.Run(fmt.Sprintf("order=%s/f=%d", order.name, f), func(b *testing.B) {
				x := make([]float32, g.NumNodes()*f)
				for i := range x {
					x[i] = float32(i%7) - 3
				}
				dst := make([]float32, len(x))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					SpMM(g, dst, x, f, nil)
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				e := float64(g.NumEdges())
				bytes := e*(4*float64(f)+8) + float64(g.NumNodes())*(4*float64(f)+8)
				b.ReportMetric(e/sec, "edges/s")
				b.ReportMetric(bytes/sec/1e9, "GB/s")
			})
		}
	}
}

func BenchmarkEdgeSoftmax(b *testing.B) {
	g, _ := benchGraphs(b)
	const h = 4
	s := make([]float32, g.NumEdges()*h)
	for i := range s {
		s[i] = float32(i%13) * 0.1
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		EdgeSoftmax(g, s, s, h)
	}
	b.ReportMetric(float64(g.NumEdges())*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}
