package quant

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

func randInt8s(r *rand.Rand, n int) []int8 {
	out := make([]int8, n)
	for i := range out {
		out[i] = int8(r.Intn(256) - 128)
	}
	return out
}

func TestGEMMInt8MatchesReference(t *testing.T) {
	tests := []struct{ m, k, n int }{
		{1, 1, 1}, {2, 3, 5}, {3, 63, 12}, {5, 64, 13}, {7, 127, 24},
		{17, 200, 7}, {33, 400, 120}, {64, 25, 6}, {0, 5, 5}, {4, 0, 3},
	}
	r := rand.New(rand.NewSource(1))
	for _, tc := range tests {
		a := randInt8s(r, tc.m*tc.k)
		b := randInt8s(r, tc.k*tc.n)
		// Extreme values stress the lanes' headroom: −128·−128 every step.
		if tc.k > 100 {
			for i := range a[:tc.k] {
				a[i] = -128
			}
			for p := 0; p < tc.k; p++ {
				b[p*tc.n] = -128
			}
		}
		want := make([]int32, tc.m*tc.n)
		GEMMInt8Ref(want, a, b, tc.m, tc.k, tc.n)
		for _, th := range []int{1, 3} {
			prev := tensor.SetThreads(th)
			got := make([]int32, tc.m*tc.n)
			GEMMInt8(got, a, tc.m, PackInt8(b, tc.k, tc.n))
			tensor.SetThreads(prev)
			if !slices.Equal(got, want) {
				t.Errorf("GEMMInt8(%d×%d·%d×%d, %d threads) differs from the reference", tc.m, tc.k, tc.k, tc.n, th)
			}
		}
	}
}

func TestPackedColSums(t *testing.T) {
	b := []int8{1, -2, 3, 4, 5, -6}
	got := PackInt8(b, 2, 3).ColSums()
	if want := []int32{5, 3, -3}; !slices.Equal(got, want) {
		t.Errorf("ColSums() = %v, want %v", got, want)
	}
}

func TestAggregateInt8MatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, n := range []int{1, 10, 3000} {
		g, err := graph.ErdosRenyi(n, min(1, 8/float64(n)), 3)
		if err != nil {
			t.Fatal(err)
		}
		g = g.AddSelfLoops()
		for _, f := range []int{1, 7, 16} {
			x := randInt8s(r, n*f)
			want := make([]int32, n*f)
			got := make([]int32, n*f)
			AggregateInt8Ref(g, want, x, f)
			AggregateInt8(g, got, x, f)
			if !slices.Equal(got, want) {
				t.Errorf("AggregateInt8(n=%d, f=%d) differs from the reference", n, f)
			}
		}
	}
}

func TestPackInt4RoundTrip(t *testing.T) {
	tests := [][]int8{
		{}, {0}, {-8}, {7, -8}, {-1, 0, 1}, {-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7},
	}
	for _, q := range tests {
		packed := make([]byte, (len(q)+1)/2)
		PackInt4(packed, q)
		got := make([]int8, len(q))
		UnpackInt4(got, packed)
		if !slices.Equal(got, q) {
			t.Errorf("UnpackInt4(PackInt4(%v)) = %v", q, got)
		}
	}
	if q := []int8{1, -1}; true {
		p := make([]byte, 1)
		PackInt4(p, q)
		if p[0] != 0xf1 {
			t.Errorf("PackInt4(%v) = %#x, want 0xf1 (low nibble first)", q, p[0])
		}
	}
}
