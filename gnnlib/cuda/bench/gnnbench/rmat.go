package main

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
)

// Graph500's R-MAT quadrant probabilities (d = 1 - a - b - c = 0.05) and
// edge factor.
const (
	rmatA, rmatB, rmatC = 0.57, 0.19, 0.19
	rmatEdgeFactor      = 16
)

// rmat draws an R-MAT graph with Graph500's parameters: 2^scale nodes and
// 16·2^scale edges, each placed by descending the adjacency matrix's
// quadrants scale times with probabilities a, b, c, d; node ids permuted
// at random (as Graph500's generator does, so that the hubs are not the
// first rows); made undirected (each edge in both directions), duplicates
// and self-loops dropped, then one self-loop per node. At scale 17 that is
// 131k nodes, about 3.9M edges and a hub of about 15k in-edges.
func rmat(scale int, seed uint64) *csr {
	n := 1 << scale
	m := rmatEdgeFactor * n
	perm := rand.New(rand.NewPCG(seed, 5)).Perm(n)
	keys := make([]uint64, 2*m)
	parts := runtime.NumCPU()
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		lo, hi := p*m/parts, (p+1)*m/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(p)+100))
			for i := lo; i < hi; i++ {
				u, v := 0, 0
				for bit := n >> 1; bit > 0; bit >>= 1 {
					x := r.Float64()
					switch {
					case x < rmatA:
					case x < rmatA+rmatB:
						v |= bit
					case x < rmatA+rmatB+rmatC:
						u |= bit
					default:
						u |= bit
						v |= bit
					}
				}
				pu, pv := uint64(perm[u]), uint64(perm[v])
				keys[2*i], keys[2*i+1] = pv<<32|pu, pu<<32|pv // (dst, src) both ways
			}
		}()
	}
	wg.Wait()
	slices.Sort(keys)
	keys = slices.Compact(keys)
	src := make([]int32, 0, len(keys)+n)
	dst := make([]int32, 0, len(keys)+n)
	for _, k := range keys {
		if d, s := int32(k>>32), int32(k&0xffffffff); d != s {
			src, dst = append(src, s), append(dst, d)
		}
	}
	for v := 0; v < n; v++ {
		src, dst = append(src, int32(v)), append(dst, int32(v))
	}
	return build(fmt.Sprintf("rmat-%d", scale), n, src, dst)
}

// maxDegree returns the largest in-degree of g.
func (g *csr) maxDegree() int {
	most := 0
	for v := 0; v < g.n; v++ {
		most = max(most, int(g.indptr[v+1]-g.indptr[v]))
	}
	return most
}

// writeEdges writes g's edges for pyg_bench.py as dir/NAME.edges: the
// little-endian int32 sources of every edge in CSR order, then their
// destinations (a 2 x E edge_index), self-loops included.
func (g *csr) writeEdges(dir string) error {
	e := len(g.idx)
	buf := make([]byte, 8*e)
	for v := 0; v < g.n; v++ {
		for p := g.indptr[v]; p < g.indptr[v+1]; p++ {
			binary.LittleEndian.PutUint32(buf[4*p:], uint32(g.idx[p]))
			binary.LittleEndian.PutUint32(buf[4*(int(p)+e):], uint32(v))
		}
	}
	return os.WriteFile(filepath.Join(dir, g.name+".edges"), buf, 0o644)
}
