package kernels

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/graph/internal/testrand"
	"github.com/gnnlab/gnnlab/gnnlib/internal/parallel"
)

// The references below loop over the edge list (src, dst) as PyG's
// scatter-based layers do, independently of the CSR kernels.

func refAggregate(nDst int, src, dst []int, x, alpha []float32, h, f int) []float32 {
	out := make([]float32, nDst*h*f)
	for e := range src {
		for k := 0; k < h; k++ {
			a := float32(1)
			if alpha != nil {
				a = alpha[e*h+k]
			}
			for j := 0; j < f; j++ {
				out[(dst[e]*h+k)*f+j] += a * x[(src[e]*h+k)*f+j]
			}
		}
	}
	return out
}

func close32(a, b []float32, tol float64) (int, bool) {
	if len(a) != len(b) {
		return -1, false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > tol*(1+math.Abs(float64(b[i]))) {
			return i, false
		}
	}
	return 0, true
}

// kernelCases are small random graphs plus one big enough to take the
// parallel path, square and rectangular.
var kernelCases = []struct{ nSrc, nDst, m, h, f int }{
	{1, 1, 0, 1, 3},
	{7, 7, 20, 1, 5},
	{9, 4, 30, 2, 3},
	{3000, 2000, 40000, 2, 8},
}

func eachKernelCase(t *testing.T, fn func(t *testing.T, rng *rand.Rand, g *graph.Graph, src, dst []int, h, f int)) {
	for _, threads := range []int{1, 4} {
		for _, c := range kernelCases {
			t.Run(fmt.Sprintf("threads=%d/%dx%d,E=%d,h=%d,f=%d", threads, c.nSrc, c.nDst, c.m, c.h, c.f), func(t *testing.T) {
				parallel.SetThreads(threads)
				defer parallel.SetThreads(0)
				rng := rand.New(rand.NewPCG(uint64(c.m), 7))
				s, d := testrand.Edges(rng, c.nSrc, c.nDst, c.m)
				g, err := graph.NewBipartite(c.nSrc, c.nDst, s, d, nil)
				if err != nil {
					t.Fatal(err)
				}
				// Compare in the graph's own edge order.
				src, dst := g.Edges()
				fn(t, rng, g, src, dst, c.h, c.f)
			})
		}
	}
}

func TestSpMM(t *testing.T) {
	eachKernelCase(t, func(t *testing.T, rng *rand.Rand, g *graph.Graph, src, dst []int, _, f int) {
		x := testrand.Floats(rng, g.NumSrc()*f)
		w := testrand.Floats(rng, g.NumEdges())
		for _, weights := range [][]float32{nil, w} {
			got := make([]float32, g.NumNodes()*f)
			SpMM(g, got, x, f, weights)
			if i, ok := close32(got, refAggregate(g.NumNodes(), src, dst, x, weights, 1, f), 1e-4); !ok {
				t.Errorf("SpMM (weighted %v) differs from the reference at %d", weights != nil, i)
			}
			// Aᵀ: the reference on the reversed edge list.
			y := testrand.Floats(rng, g.NumNodes()*f)
			gotT := make([]float32, g.NumSrc()*f)
			SpMMT(g, gotT, y, f, weights)
			if i, ok := close32(gotT, refAggregate(g.NumSrc(), dst, src, y, weights, 1, f), 1e-4); !ok {
				t.Errorf("SpMMT (weighted %v) differs from the reference at %d", weights != nil, i)
			}
		}
	})
}

func TestMeanAggregate(t *testing.T) {
	eachKernelCase(t, func(t *testing.T, rng *rand.Rand, g *graph.Graph, src, dst []int, _, f int) {
		x := testrand.Floats(rng, g.NumSrc()*f)
		want := refAggregate(g.NumNodes(), src, dst, x, nil, 1, f)
		deg := g.InDegrees()
		for i := range want {
			if d := deg[i/f]; d > 0 {
				want[i] /= float32(d)
			}
		}
		got := make([]float32, len(want))
		MeanAggregate(g, got, x, f)
		if i, ok := close32(got, want, 1e-4); !ok {
			t.Errorf("MeanAggregate differs from the reference at %d: %v vs %v", i, got[i], want[i])
		}
		// Backward: <MeanAggregate(x), y> = <x, MeanAggregateT(y)>.
		y := testrand.Floats(rng, len(want))
		gx := make([]float32, len(x))
		MeanAggregateT(g, gx, y, f)
		if a, b := dot64(got, y), dot64(x, gx); math.Abs(a-b) > 1e-3*(1+math.Abs(a)) {
			t.Errorf("<Mean(x), y> = %v, <x, MeanT(y)> = %v", a, b)
		}
	})
}

func dot64(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestAttentionAggregate(t *testing.T) {
	eachKernelCase(t, func(t *testing.T, rng *rand.Rand, g *graph.Graph, src, dst []int, h, f int) {
		x := testrand.Floats(rng, g.NumSrc()*h*f)
		alpha := testrand.Floats(rng, g.NumEdges()*h)
		got := make([]float32, g.NumNodes()*h*f)
		AttentionAggregate(g, got, x, alpha, h, f)
		if i, ok := close32(got, refAggregate(g.NumNodes(), src, dst, x, alpha, h, f), 1e-4); !ok {
			t.Errorf("AttentionAggregate differs from the reference at %d", i)
		}
		grad := testrand.Floats(rng, len(got))
		gx := make([]float32, len(x))
		AttentionAggregateT(g, gx, grad, alpha, h, f)
		if i, ok := close32(gx, refAggregate(g.NumSrc(), dst, src, grad, alpha, h, f), 1e-4); !ok {
			t.Errorf("AttentionAggregateT differs from the reference at %d", i)
		}
	})
}

func TestSDDMM(t *testing.T) {
	eachKernelCase(t, func(t *testing.T, rng *rand.Rand, g *graph.Graph, src, dst []int, h, f int) {
		a := testrand.Floats(rng, g.NumSrc()*h*f)
		b := testrand.Floats(rng, g.NumNodes()*h*f)
		want := make([]float32, g.NumEdges()*h)
		for e := range src {
			for k := 0; k < h; k++ {
				for j := 0; j < f; j++ {
					want[e*h+k] += a[(src[e]*h+k)*f+j] * b[(dst[e]*h+k)*f+j]
				}
			}
		}
		got := make([]float32, len(want))
		SDDMM(g, got, a, b, h, f)
		if i, ok := close32(got, want, 1e-4); !ok {
			t.Errorf("SDDMM differs from the reference at %d: %v vs %v", i, got[i], want[i])
		}
		as := testrand.Floats(rng, g.NumSrc()*h)
		ad := testrand.Floats(rng, g.NumNodes()*h)
		for e := range src {
			for k := 0; k < h; k++ {
				want[e*h+k] = as[src[e]*h+k] + ad[dst[e]*h+k]
			}
		}
		SDDMMAdd(g, got, as, ad, h)
		if i, ok := close32(got, want, 1e-6); !ok {
			t.Errorf("SDDMMAdd differs from the reference at %d: %v vs %v", i, got[i], want[i])
		}
	})
}

func TestEdgeSoftmax(t *testing.T) {
	eachKernelCase(t, func(t *testing.T, rng *rand.Rand, g *graph.Graph, src, dst []int, h, _ int) {
		s := testrand.Floats(rng, g.NumEdges()*h)
		for i := range s {
			s[i] *= 30 // large logits: the max subtraction must keep exp finite
		}
		if len(s) > 0 {
			s[0] += 500
		}
		want := make([]float32, len(s))
		for k := 0; k < h; k++ {
			sum := make([]float64, g.NumNodes())
			mx := make([]float64, g.NumNodes())
			for v := range mx {
				mx[v] = math.Inf(-1)
			}
			for e := range src {
				mx[dst[e]] = math.Max(mx[dst[e]], float64(s[e*h+k]))
			}
			for e := range src {
				sum[dst[e]] += math.Exp(float64(s[e*h+k]) - mx[dst[e]])
			}
			for e := range src {
				want[e*h+k] = float32(math.Exp(float64(s[e*h+k])-mx[dst[e]]) / sum[dst[e]])
			}
		}
		got := make([]float32, len(s))
		EdgeSoftmax(g, got, s, h)
		if i, ok := close32(got, want, 1e-5); !ok {
			t.Errorf("EdgeSoftmax differs from the reference at %d: %v vs %v", i, got[i], want[i])
		}
		// Backward against the Jacobian-vector product by central differences.
		grad := testrand.Floats(rng, len(s))
		ds := make([]float32, len(s))
		EdgeSoftmaxBackward(g, ds, got, grad, h)
		for _, i := range []int{0, len(s) / 2, len(s) - 1} {
			if len(s) == 0 {
				break
			}
			num := numericGrad(func(p []float32) float64 {
				out := make([]float32, len(p))
				EdgeSoftmax(g, out, p, h)
				return dot64(out, grad)
			}, s, i)
			if math.Abs(num-float64(ds[i])) > 1e-2*(1+math.Abs(num)) {
				t.Errorf("EdgeSoftmaxBackward[%d] = %v, numerical %v", i, ds[i], num)
			}
		}
	})
}

func numericGrad(fn func([]float32) float64, p []float32, i int) float64 {
	q := append([]float32(nil), p...)
	const eps = 1e-2
	q[i] = p[i] + eps
	up := fn(q)
	q[i] = p[i] - eps
	return (up - fn(q)) / (2 * eps)
}

func TestAggregateMaxMin(t *testing.T) {
	eachKernelCase(t, func(t *testing.T, rng *rand.Rand, g *graph.Graph, src, dst []int, _, f int) {
		x := testrand.Floats(rng, g.NumSrc()*f)
		for _, useMax := range []bool{true, false} {
			want := make([]float32, g.NumNodes()*f)
			seen := make([]bool, g.NumNodes())
			for e := range src {
				v, u := dst[e], src[e]
				for j := 0; j < f; j++ {
					a, b := x[u*f+j], want[v*f+j]
					if !seen[v] || (useMax && a > b) || (!useMax && a < b) {
						want[v*f+j] = a
					}
				}
				seen[v] = true
			}
			got := make([]float32, len(want))
			arg := make([]int, len(want))
			if useMax {
				AggregateMax(g, got, x, f, arg)
			} else {
				AggregateMin(g, got, x, f, arg)
			}
			if i, ok := close32(got, want, 0); !ok {
				t.Fatalf("Aggregate (max %v) differs from the reference at %d: %v vs %v", useMax, i, got[i], want[i])
			}
			for i, u := range arg {
				if (u < 0 && seen[i/f]) || (u >= 0 && x[u*f+i%f] != got[i]) {
					t.Fatalf("arg[%d] = %d does not point at the value %v", i, u, got[i])
				}
			}
			gx := make([]float32, len(x))
			ones := make([]float32, len(got))
			for i := range ones {
				ones[i] = 1
			}
			ScatterArg(gx, ones, f, arg)
			var total float32
			for _, v := range gx {
				total += v
			}
			nonEmpty := 0
			for _, s := range seen {
				if s {
					nonEmpty++
				}
			}
			if int(total) != nonEmpty*f {
				t.Errorf("ScatterArg of ones sums to %v, want %d", total, nonEmpty*f)
			}
		}
	})
}

func TestSegmentReductions(t *testing.T) {
	offsets := []int{0, 2, 2, 5}
	x := []float32{1, -1, 3, 4, 0, 0, 5, 2, -7, 9}
	const f = 2
	tests := []struct {
		name    string
		run     func(dst []float32, arg []int)
		want    []float32
		wantArg []int
	}{
		{"sum", func(d []float32, _ []int) { SegmentSum(d, x, f, offsets) }, []float32{4, 3, 0, 0, -2, 11}, nil},
		{"mean", func(d []float32, _ []int) { SegmentMean(d, x, f, offsets) }, []float32{2, 1.5, 0, 0, -2.0 / 3, 11.0 / 3}, nil},
		{"max", func(d []float32, a []int) { SegmentMax(d, x, f, offsets, a) }, []float32{3, 4, 0, 0, 5, 9}, []int{1, 1, -1, -1, 3, 4}},
		{"min", func(d []float32, a []int) { SegmentMin(d, x, f, offsets, a) }, []float32{1, -1, 0, 0, -7, 0}, []int{0, 0, -1, -1, 4, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make([]float32, 6)
			arg := make([]int, 6)
			tt.run(got, arg)
			if i, ok := close32(got, tt.want, 1e-6); !ok {
				t.Errorf("Segment %s = %v, want %v (at %d)", tt.name, got, tt.want, i)
			}
			if tt.wantArg != nil && fmt.Sprint(arg) != fmt.Sprint(tt.wantArg) {
				t.Errorf("Segment %s arg = %v, want %v", tt.name, arg, tt.wantArg)
			}
		})
	}
}

func TestShapePanics(t *testing.T) {
	g, _ := graph.FromEdges(3, []int{0, 1}, []int{1, 2})
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok || !errors.Is(err, graph.ErrShape) {
			t.Errorf("SpMM with a short x panicked with %v, want an error wrapping ErrShape", r)
		}
	}()
	SpMM(g, make([]float32, 6), make([]float32, 5), 2, nil)
}
