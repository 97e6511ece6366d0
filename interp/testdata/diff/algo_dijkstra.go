package main

import (
	"container/heap"
	"fmt"
)

type edge struct{ to, w int }

type item struct{ node, dist int }
type pq []item

func (p pq) Len() int { return len(p) }
func (p pq) Less(i, j int) bool {
	return p[i].dist < p[j].dist || (p[i].dist == p[j].dist && p[i].node < p[j].node)
}
func (p pq) Swap(i, j int) { p[i], p[j] = p[j], p[i] }
func (p *pq) Push(x any)   { *p = append(*p, x.(item)) }
func (p *pq) Pop() any     { o := *p; x := o[len(o)-1]; *p = o[:len(o)-1]; return x }

func dijkstra(g [][]edge, src int) []int {
	dist := make([]int, len(g))
	for i := range dist {
		dist[i] = 1 << 30
	}
	dist[src] = 0
	h := &pq{{src, 0}}
	for h.Len() > 0 {
		it := heap.Pop(h).(item)
		if it.dist > dist[it.node] {
			continue
		}
		for _, e := range g[it.node] {
			if d := it.dist + e.w; d < dist[e.to] {
				dist[e.to] = d
				heap.Push(h, item{e.to, d})
			}
		}
	}
	return dist
}

func main() {
	g := make([][]edge, 5)
	add := func(a, b, w int) {
		g[a] = append(g[a], edge{b, w})
		g[b] = append(g[b], edge{a, w})
	}
	add(0, 1, 4)
	add(0, 2, 1)
	add(2, 1, 2)
	add(1, 3, 5)
	add(3, 4, 3)
	fmt.Println(dijkstra(g, 0))
	fmt.Println(dijkstra(g, 4))
}
