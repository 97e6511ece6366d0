package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// EdgeList is a list of node pairs in PyG's edge_index order: pair i goes
// from Src[i] to Dst[i]. Link prediction uses it for the positive and
// negative pairs it scores.
type EdgeList struct {
	Src, Dst []int
}

// Len returns the number of pairs.
func (l EdgeList) Len() int { return len(l.Src) }

// LinkSplit is an edge split for link prediction, as PyG's
// RandomLinkSplit makes with is_undirected=True and split_labels=True.
// Each undirected pair of the input graph lands in exactly one of the
// three positive sets, stored once (Src < Dst). Train holds the training
// pairs in both directions: the graph an encoder propagates over, so that
// no validation or test link leaks into the embeddings. The negative sets
// hold as many pairs as their positive sets, none of them an edge of the
// input graph, none repeated; training negatives are drawn afresh each
// epoch with NegativeSampling(Train, …).
type LinkSplit struct {
	Train                            *Graph
	TrainPos                         EdgeList
	ValPos, ValNeg, TestPos, TestNeg EdgeList
}

// pairKey is the key of the unordered pair {u, v}.
func pairKey(u, v, n int) int64 {
	if u > v {
		u, v = v, u
	}
	return int64(u)*int64(n) + int64(v)
}

// undirectedPairs returns the distinct unordered pairs {u, v}, u < v, of
// g's edges in edge-id order, and the set of their keys. Self-loops are
// left out.
func undirectedPairs(g *Graph) (src, dst []int, seen map[int64]struct{}) {
	n := g.NumNodes()
	seen = make(map[int64]struct{}, g.NumEdges())
	for v := 0; v < n; v++ {
		for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
			u := g.Indices[e]
			if u == v {
				continue
			}
			k := pairKey(u, v, n)
			if _, ok := seen[k]; ok {
				continue
			}
			seen[k] = struct{}{}
			src, dst = append(src, min(u, v)), append(dst, max(u, v))
		}
	}
	return src, dst, seen
}

// RandomLinkSplit splits the undirected pairs of g into training,
// validation and test links with negative samples, from a seed: the
// validation set holds ⌊valFrac·P⌋ and the test set ⌊testFrac·P⌋ of the P
// distinct pairs (self-loops are not links and are dropped), the rest
// train. g is read as undirected: u→v and v→u are one pair; weights are
// dropped. Fractions outside [0, 1), or summing to 1 or more, give an
// error wrapping ErrParam, as does a graph too dense to supply the
// negative pairs.
func RandomLinkSplit(g *Graph, valFrac, testFrac float64, seed uint64) (*LinkSplit, error) {
	if !(valFrac >= 0 && testFrac >= 0 && valFrac+testFrac < 1) {
		return nil, fmt.Errorf("graph: RandomLinkSplit(val=%g, test=%g): fractions must be ≥ 0 and sum to less than 1: %w", valFrac, testFrac, ErrParam)
	}
	g.mustSquare("RandomLinkSplit")
	n := g.NumNodes()
	src, dst, seen := undirectedPairs(g)
	p := len(src)
	nVal, nTest := int(math.Floor(valFrac*float64(p))), int(math.Floor(testFrac*float64(p)))
	rng := newRand(seed)
	perm := rng.Perm(p)
	pick := func(idx []int) EdgeList {
		l := EdgeList{Src: make([]int, len(idx)), Dst: make([]int, len(idx))}
		for i, j := range idx {
			l.Src[i], l.Dst[i] = src[j], dst[j]
		}
		return l
	}
	s := &LinkSplit{
		ValPos:   pick(perm[:nVal]),
		TestPos:  pick(perm[nVal : nVal+nTest]),
		TrainPos: pick(perm[nVal+nTest:]),
	}
	neg, err := sampleNonEdges(n, seen, nVal+nTest, rng)
	if err != nil {
		return nil, fmt.Errorf("graph: RandomLinkSplit: %w", err)
	}
	s.ValNeg = EdgeList{Src: neg.Src[:nVal], Dst: neg.Dst[:nVal]}
	s.TestNeg = EdgeList{Src: neg.Src[nVal:], Dst: neg.Dst[nVal:]}
	t := s.TrainPos
	s.Train = undirected(n, t.Src, t.Dst)
	return s, nil
}

// NegativeSampling draws num distinct unordered node pairs {u, v}, u ≠ v,
// none of them an edge of g in either direction, from a seed. Asking for
// more pairs than g leaves free gives an error wrapping ErrParam.
func NegativeSampling(g *Graph, num int, seed uint64) (EdgeList, error) {
	g.mustSquare("NegativeSampling")
	if num < 0 {
		return EdgeList{}, fmt.Errorf("graph: NegativeSampling: num = %d: %w", num, ErrParam)
	}
	_, _, seen := undirectedPairs(g)
	l, err := sampleNonEdges(g.NumNodes(), seen, num, newRand(seed))
	if err != nil {
		return EdgeList{}, fmt.Errorf("graph: NegativeSampling: %w", err)
	}
	return l, nil
}

// sampleNonEdges draws num distinct unordered pairs of n nodes whose keys
// are not in taken, in random orientation. It samples by rejection while
// most pairs are free, and enumerates the free pairs otherwise.
func sampleNonEdges(n int, taken map[int64]struct{}, num int, rng *rand.Rand) (EdgeList, error) {
	total := int64(n) * int64(n-1) / 2
	free := total - int64(len(taken))
	if int64(num) > free {
		return EdgeList{}, fmt.Errorf("%d negative pairs wanted, but only %d of the %d node pairs are not edges: %w", num, free, total, ErrParam)
	}
	l := EdgeList{Src: make([]int, 0, num), Dst: make([]int, 0, num)}
	add := func(u, v int) {
		if rng.IntN(2) == 1 {
			u, v = v, u
		}
		l.Src, l.Dst = append(l.Src, u), append(l.Dst, v)
	}
	if free >= 2*int64(num) && free*2 >= total {
		chosen := make(map[int64]struct{}, num)
		for l.Len() < num {
			u, v := rng.IntN(n), rng.IntN(n)
			if u == v {
				continue
			}
			k := pairKey(u, v, n)
			if _, ok := taken[k]; ok {
				continue
			}
			if _, ok := chosen[k]; ok {
				continue
			}
			chosen[k] = struct{}{}
			add(u, v)
		}
		return l, nil
	}
	// Dense graph: enumerate the free pairs, then draw without replacement.
	var cand []int64
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if _, ok := taken[pairKey(u, v, n)]; !ok {
				cand = append(cand, pairKey(u, v, n))
			}
		}
	}
	for i := 0; i < num; i++ {
		j := i + rng.IntN(len(cand)-i)
		cand[i], cand[j] = cand[j], cand[i]
		add(int(cand[i]/int64(n)), int(cand[i]%int64(n)))
	}
	return l, nil
}
