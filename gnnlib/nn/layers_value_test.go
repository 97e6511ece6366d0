package nn_test

import (
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// The tests below compare the propagation layers with the papers'
// formulas evaluated densely in float64.

type mat [][]float64

func newMat(r, c int) mat {
	m := make(mat, r)
	for i := range m {
		m[i] = make([]float64, c)
	}
	return m
}

func toMat(t *tensor.Tensor) mat {
	m := newMat(t.Size(0), t.Size(1))
	for i := range m {
		for j := range m[i] {
			m[i][j] = float64(t.At(i, j))
		}
	}
	return m
}

func (a mat) mul(b mat) mat {
	c := newMat(len(a), len(b[0]))
	for i := range a {
		for k := range b {
			for j := range b[0] {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}

func (a mat) lin(s float64, b mat, t float64) mat {
	c := newMat(len(a), len(a[0]))
	for i := range a {
		for j := range a[i] {
			c[i][j] = s*a[i][j] + t*b[i][j]
		}
	}
	return c
}

func (a mat) addRow(b []float64) mat {
	c := a.lin(1, a, 0)
	for i := range c {
		for j := range c[i] {
			c[i][j] += b[j]
		}
	}
	return c
}

func vec(t *tensor.Tensor) []float64 { return t.Float64s() }

func checkMat(t *testing.T, name string, got *tensor.Tensor, want mat) {
	t.Helper()
	for i := range want {
		for j := range want[i] {
			if g := float64(got.At(i, j)); math.Abs(g-want[i][j]) > 1e-4*math.Max(1, math.Abs(want[i][j])) {
				t.Errorf("%s[%d][%d] = %v, want %v", name, i, j, g, want[i][j])
				return
			}
		}
	}
}

// adjacency returns A with A[v][u] = the weight of u→v (loops kept when
// loops, dropped otherwise).
func adjacency(g *graph.Graph, loops bool) mat {
	a := newMat(g.NumNodes(), g.NumNodes())
	for v := 0; v < g.NumNodes(); v++ {
		for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
			u := g.Indices[e]
			if u == v && !loops {
				continue
			}
			w := 1.0
			if g.Weights != nil {
				w = float64(g.Weights[e])
			}
			a[v][u] += w
		}
	}
	return a
}

// symNorm returns D^-1/2 a D^-1/2 with D the row sums of a.
func symNorm(a mat) mat {
	d := make([]float64, len(a))
	for v := range a {
		for _, w := range a[v] {
			d[v] += w
		}
		if d[v] > 0 {
			d[v] = 1 / math.Sqrt(d[v])
		}
	}
	c := newMat(len(a), len(a))
	for v := range a {
		for u := range a {
			c[v][u] = d[v] * a[v][u] * d[u]
		}
	}
	return c
}

func eye(n int) mat {
	m := newMat(n, n)
	for i := range m {
		m[i][i] = 1
	}
	return m
}

func weightedSmallGraph(t *testing.T) *graph.Graph {
	g, err := smallGraph(t).WithWeights([]float32{0.5, 1, 2, 1.5, 1, 0.3, 1, 2, 1, 0.7, 1, 1, 0.2, 1, 3})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// symmetric is smallGraph made undirected: GCN normalisation is meant
// for undirected graphs, where in- and out-degrees agree.
func symmetric(t *testing.T) *graph.Graph { return smallGraph(t).ToUndirected() }

func TestChebConvValues(t *testing.T) {
	nn.Seed(31)
	x := tensor.NewRNG(1).Normal(0, 1, 7, 4)
	for _, tc := range []struct {
		name string
		g    *graph.Graph
		k    int
		lmax float64
	}{{"K=3", symmetric(t), 3, 2}, {"K=5 weighted λ=1.7", weightedSmallGraph(t), 5, 1.7}, {"K=2", smallGraph(t), 2, 2}} {
		c := nn.NewChebConv(4, 3, tc.k)
		c.LambdaMax = tc.lmax
		copy(c.B.Data(), []float32{0.1, -0.2, 0.3})
		n := tc.g.NumNodes()
		lap := eye(n).lin(1, symNorm(adjacency(tc.g, false)), -1) // L = I − D^-1/2 A D^-1/2
		lt := lap.lin(2/tc.lmax, eye(n), -1)
		xm := toMat(x)
		tPrev, tCur := xm, lt.mul(xm)
		want := xm.mul(toMat(c.W[0]))
		for i := 1; i < tc.k; i++ {
			want = want.lin(1, tCur.mul(toMat(c.W[i])), 1)
			tPrev, tCur = tCur, lt.mul(tCur).lin(2, tPrev, -1)
		}
		checkMat(t, "ChebConv/"+tc.name, c.Forward(tc.g, x), want.addRow(vec(c.B)))
	}
}

func TestSGConvAndAPPNPValues(t *testing.T) {
	nn.Seed(32)
	g := symmetric(t)
	x := tensor.NewRNG(3).Normal(0, 1, 7, 4)
	ahat := symNorm(adjacency(g.AddSelfLoops(), true))
	for _, k := range []int{0, 1, 3} {
		uncached := nn.NewSGConv(4, 2, k, false)
		cached := nn.NewSGConv(4, 2, k, true)
		copy(cached.W.Data(), uncached.W.Data())
		copy(cached.B.Data(), uncached.B.Data())
		want := toMat(x)
		for i := 0; i < k; i++ {
			want = ahat.mul(want)
		}
		want = want.mul(toMat(uncached.W)).addRow(vec(uncached.B))
		checkMat(t, "SGConv/uncached", uncached.Forward(g, x), want)
		checkMat(t, "SGConv/cached", cached.Forward(g, x), want)
		checkMat(t, "SGConv/cached again", cached.Forward(g, x), want)
		// A sparse x gives the same result through the sparse cache.
		sp := nn.NewSGConv(4, 2, k, true)
		copy(sp.W.Data(), uncached.W.Data())
		copy(sp.B.Data(), uncached.B.Data())
		checkMat(t, "SGConv/sparse", sp.Forward(g, tensor.SparseFromDense(x)), want)
	}
	// The cache follows the input: a new x is propagated anew.
	c := nn.NewSGConv(4, 2, 2, true)
	c.Forward(g, x)
	x2 := x.MulScalar(2)
	want := ahat.mul(ahat.mul(toMat(x2))).mul(toMat(c.W)).addRow(vec(c.B))
	checkMat(t, "SGConv/new input", c.Forward(g, x2), want)

	h := toMat(x)
	z := h
	for i := 0; i < 4; i++ {
		z = ahat.mul(z).lin(0.85, h, 0.15)
	}
	appnp := nn.NewAPPNP(4, 0.15, 0.5)
	appnp.Eval() // no edge dropout
	checkMat(t, "APPNP", appnp.Forward(g, x), z)
}

func TestTransformerConvValues(t *testing.T) {
	nn.Seed(33)
	g := smallGraph(t)
	x := tensor.NewRNG(4).Normal(0, 1, 7, 5)
	for _, tc := range []struct {
		name         string
		heads, out   int
		concat, beta bool
	}{{"concat", 2, 3, true, false}, {"mean beta", 3, 2, false, true}, {"one head beta", 1, 4, true, true}} {
		c := nn.NewTransformerConv(5, tc.out, tc.heads, tc.concat, tc.beta, 0.5)
		c.Eval()
		got := c.Forward(g, x)
		xm := toMat(x)
		q := xm.mul(toMat(c.WQ)).addRow(vec(c.BQ))
		k := xm.mul(toMat(c.WK)).addRow(vec(c.BK))
		v := xm.mul(toMat(c.WV)).addRow(vec(c.BV))
		width := tc.out
		if tc.concat {
			width = tc.heads * tc.out
		}
		h := newMat(7, width)
		for d := 0; d < 7; d++ {
			srcs := g.Neighbors(d)
			for hd := 0; hd < tc.heads; hd++ {
				s := make([]float64, len(srcs))
				var mx = math.Inf(-1)
				for i, u := range srcs {
					for j := 0; j < tc.out; j++ {
						s[i] += q[d][hd*tc.out+j] * k[u][hd*tc.out+j]
					}
					s[i] /= math.Sqrt(float64(tc.out))
					mx = math.Max(mx, s[i])
				}
				var z float64
				for i := range s {
					s[i] = math.Exp(s[i] - mx)
					z += s[i]
				}
				for i, u := range srcs {
					for j := 0; j < tc.out; j++ {
						col := j
						if tc.concat {
							col = hd*tc.out + j
						}
						w := s[i] / z
						if !tc.concat {
							w /= float64(tc.heads)
						}
						h[d][col] += w * v[u][hd*tc.out+j]
					}
				}
			}
		}
		r := xm.mul(toMat(c.WSkip)).addRow(vec(c.BSkip))
		want := h.lin(1, r, 1)
		if tc.beta {
			wb := vec(c.WBeta)
			for d := range want {
				var s float64
				for j := 0; j < width; j++ {
					s += h[d][j]*wb[j] + r[d][j]*wb[width+j] + (h[d][j]-r[d][j])*wb[2*width+j]
				}
				b := 1 / (1 + math.Exp(-s))
				for j := range want[d] {
					want[d][j] = b*r[d][j] + (1-b)*h[d][j]
				}
			}
		}
		checkMat(t, "TransformerConv/"+tc.name, got, want)
	}
}
