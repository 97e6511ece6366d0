package cuda

import (
	"math"
	"math/bits"
	"runtime"
	"sync"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

// gatv2Exact is the GATv2 attention of the fused kernels evaluated in
// float64 on given float32 operands (the bfloat16-rounded values both
// kernels read), with a bound per value on how far a float32 kernel's
// result may lie from it through rounding alone, whatever the order of
// its sums. The backward pass reads o, the output the kernels' backward
// passes read (the bfloat16 kernel's rounded one), through D = dOut·o,
// as the kernels do; dropout factors are the kernels' (dropKeep).
//
// Why a bound on the sum of absolute terms: ds = α·(k·g − D) cancels
// where g ≈ D, and dxr = Σ ds·a ⊙ lrelu'(z) cancels again (Σ ds is about
// zero), so a last-bit difference in a score or a dot product, such as
// two lane layouts summing their channels in different orders, becomes a
// relative error in dxr far above 2⁻⁸ (TestGATv2LayoutsEmulated
// reproduces it on the CPU). The bound follows each rounding to first
// order, at float32's unit roundoff u:
//
//	δs ≤ (d+2)·u·Σ_c |a_c·lrelu(z_c)|   (d: the depth of a lane group's sum)
//	δα ≤ α·(δs + max δs of the row + (|s − L| + deg + 4)·u)
//	δg ≤ (d+1)·u·Σ_c |dOut_c·q_c|, δD likewise over dOut·o
//	δds ≤ δα·|k·g − D| + α·(k·δg + δD) + 2u·|ds|
//	δdxr_c ≤ Σ_e δds_e·|a_c|·lrelu'(z_ec) + (deg+2)·u·Σ_e |ds_e·a_c·lrelu'(z_ec)|
//
// and likewise for the output (Σ δα·k·|q|) and dxl (over the transpose).
type gatv2Exact struct {
	lse, out, dxr, dxl     []float64
	blse, bout, bdxr, bdxl []float64
}

const u32 = 1.0 / (1 << 24)

func newGATv2Exact(g *graph.Graph, heads, c int, slope float64, drop AttentionDropout, xl, xr, att, dout, o []float32) *gatv2Exact {
	n, hc, ne := g.NumNodes(), heads*c, g.NumEdges()
	k, _ := gatShape(c)
	depth := float64(4*k.vpl + bits.Len(uint(k.g)) - 1)
	// Per edge and head: α, ds and their bounds.
	alpha, ds, dal, dds := make([]float64, ne*heads), make([]float64, ne*heads), make([]float64, ne*heads), make([]float64, ne*heads)
	lse, blse := make([]float64, n*heads), make([]float64, n*heads)
	parallelRange(n, func(v int) {
		beg, end := g.Indptr[v], g.Indptr[v+1]
		deg := float64(end - beg)
		for h := range heads {
			a, r, gov, ov := att[h*c:h*c+c], xr[v*hc+h*c:v*hc+h*c+c], dout[v*hc+h*c:v*hc+h*c+c], o[v*hc+h*c:v*hc+h*c+c]
			s, bs := make([]float64, end-beg), make([]float64, end-beg)
			m, bmax := math.Inf(-1), 0.0
			for i := range s {
				q := xl[g.Indices[beg+i]*hc+h*c:]
				var sum, abs float64
				for j := range c {
					z := float64(q[j]) + float64(r[j])
					t := float64(a[j]) * lrelu64(z, slope)
					sum += t
					abs += math.Abs(t)
				}
				s[i], bs[i] = sum, (depth+2)*u32*abs
				m, bmax = math.Max(m, sum), math.Max(bmax, bs[i])
			}
			var l float64
			for i := range s {
				l += math.Exp(s[i] - m)
			}
			L := m + math.Log(l)
			if end > beg {
				lse[v*heads+h], blse[v*heads+h] = L, bmax+(deg+4)*u32*(1+math.Abs(L))
			}
			var D, Dabs float64
			for j := range c {
				D += float64(gov[j]) * float64(ov[j])
				Dabs += math.Abs(float64(gov[j]) * float64(ov[j]))
			}
			bD := (depth + 1) * u32 * Dabs
			for i := range s {
				e := beg + i
				q := xl[g.Indices[e]*hc+h*c:]
				var gq, gabs float64
				for j := range c {
					gq += float64(gov[j]) * float64(q[j])
					gabs += math.Abs(float64(gov[j]) * float64(q[j]))
				}
				kd := dropKeep(drop, e, h, heads)
				al := math.Exp(s[i] - L)
				ba := al * (bs[i] + bmax + (math.Abs(s[i]-L)+deg+4)*u32)
				d := al * (kd*gq - D)
				t := e*heads + h
				alpha[t], ds[t], dal[t] = al, d, ba
				dds[t] = ba*math.Abs(kd*gq-D) + al*(kd*(depth+1)*u32*gabs+bD) + 2*u32*math.Abs(d)
			}
		}
	})
	x := &gatv2Exact{lse: lse, blse: blse, out: make([]float64, n*hc), dxr: make([]float64, n*hc), dxl: make([]float64, n*hc),
		bout: make([]float64, n*hc), bdxr: make([]float64, n*hc), bdxl: make([]float64, n*hc)}
	// By destination: the output and dxr.
	parallelRange(n, func(v int) {
		beg, end := g.Indptr[v], g.Indptr[v+1]
		deg := float64(end - beg)
		for h := range heads {
			a, r := att[h*c:h*c+c], xr[v*hc+h*c:]
			row := v*hc + h*c
			oabs, rabs := make([]float64, c), make([]float64, c)
			for e := beg; e < end; e++ {
				q := xl[g.Indices[e]*hc+h*c:]
				t := e*heads + h
				kd := dropKeep(drop, e, h, heads)
				for j := range c {
					w := kd * alpha[t] * float64(q[j])
					x.out[row+j] += w
					oabs[j] += math.Abs(w)
					x.bout[row+j] += kd * dal[t] * math.Abs(float64(q[j]))
					dz := float64(a[j]) * dlrelu64(float64(q[j])+float64(r[j]), slope)
					x.dxr[row+j] += ds[t] * dz
					rabs[j] += math.Abs(ds[t] * dz)
					x.bdxr[row+j] += dds[t] * math.Abs(dz)
				}
			}
			for j := range c {
				x.bout[row+j] += (deg + 4) * u32 * oabs[j]
				x.bdxr[row+j] += (deg + 2) * u32 * rabs[j]
			}
		}
	})
	// By source, over the transpose: dxl.
	tg, emap := g.Transpose(), g.TransposeEdges()
	parallelRange(n, func(u int) {
		beg, end := tg.Indptr[u], tg.Indptr[u+1]
		deg := float64(end - beg)
		for h := range heads {
			a, q := att[h*c:h*c+c], xl[u*hc+h*c:]
			row := u*hc + h*c
			abs := make([]float64, c)
			for p := beg; p < end; p++ {
				v, e := tg.Indices[p], emap[p]
				r, gov := xr[v*hc+h*c:], dout[v*hc+h*c:]
				t := e*heads + h
				kd := dropKeep(drop, e, h, heads)
				for j := range c {
					dz := float64(a[j]) * dlrelu64(float64(q[j])+float64(r[j]), slope)
					w := kd * alpha[t] * float64(gov[j])
					x.dxl[row+j] += w + ds[t]*dz
					abs[j] += math.Abs(w) + math.Abs(ds[t]*dz)
					x.bdxl[row+j] += kd*dal[t]*math.Abs(float64(gov[j])) + dds[t]*math.Abs(dz)
				}
			}
			for j := range c {
				x.bdxl[row+j] += (deg + 3) * u32 * abs[j]
			}
		}
	})
	return x
}

func lrelu64(z, slope float64) float64 {
	if z > 0 {
		return z
	}
	return slope * z
}

func dlrelu64(z, slope float64) float64 {
	if z > 0 {
		return 1
	}
	return slope
}

// parallelRange calls f(i) for i < n on all CPUs.
func parallelRange(n int, f func(i int)) {
	w := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for k := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < n; i += w {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// checkExact compares a kernel's result got with the float64 value
// want: |got − want| ≤ eps·|want| + bound + 1e-30, eps the rounding of
// the result's storage (2⁻⁸ for bfloat16, 0 for float32) and bound
// gatv2Exact's. It reports the values past it, the worst one's
// neighbourhood, and returns the largest ratio of error to tolerance,
// which the device run's log shows (-v) for every case.
func checkExact(t *testing.T, what string, got []float32, want, bound []float64, eps float64) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad, worst, at := 0, 0.0, -1
	for i := range got {
		e := math.Abs(float64(got[i]) - want[i])
		tol := eps*math.Abs(want[i]) + bound[i] + 1e-30
		r := e / tol
		if math.IsNaN(r) {
			r = math.Inf(1)
		}
		if r > worst || at < 0 {
			worst, at = r, i
		}
		if r > 1 {
			bad++
		}
	}
	t.Logf("%s: worst %.3g of the bound at [%d] (got %v, exact %.7g, bound %.3g)", what, worst, at, got[at], want[at], eps*math.Abs(want[at])+bound[at])
	if bad > 0 {
		t.Errorf("%s: %d of %d values beyond the rounding bound; [%d] = %v, exact %.7g (%.3g× the bound %.3g)", what, bad, len(got), at, got[at], want[at], worst, eps*math.Abs(want[at])+bound[at])
	}
	return worst
}
