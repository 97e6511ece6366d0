package cuda

import (
	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// GNNLAB_TEST_GEMM names the kernel family (v1, v2, v2k8, v2n, v2s, tf32x3) that MatMul
// uses in this test binary, so that the device-level agreement tests
// (TestDeviceSuite) can run on each family.
func init() {
	if k := os.Getenv("GNNLAB_TEST_GEMM"); k != "" {
		tune.GEMM = tune.GEMMKernel(k)
	}
}

// gemmCase is one product op(A)[m,k]·op(B)[k,n]. sample > 0 checks that
// many random output elements against the float64 reference (the layer
// shapes are too large for a full reference on the host); 0 checks all.
type gemmCase struct {
	m, k, n        int
	transA, transB bool
	sample         int
}

// operands returns op(a)[i, p] and op(b)[p, j].
func (c gemmCase) operands(a, b []float32, i, j, p int) (av, bv float32) {
	if c.transA {
		av = a[p*c.m+i]
	} else {
		av = a[i*c.k+p]
	}
	if c.transB {
		bv = b[j*c.k+p]
	} else {
		bv = b[p*c.n+j]
	}
	return av, bv
}

// shapes returns the rows and columns of the stored A and B.
func (c gemmCase) shapes() (ar, ac, br, bc int) {
	ar, ac, br, bc = c.m, c.k, c.k, c.n
	if c.transA {
		ar, ac = ac, ar
	}
	if c.transB {
		br, bc = bc, br
	}
	return ar, ac, br, bc
}

// ref returns element (i, j) of op(a)·op(b) in float64.
func (c gemmCase) ref(a, b []float32, i, j int) float64 {
	var s float64
	for p := 0; p < c.k; p++ {
		av, bv := c.operands(a, b, i, j, p)
		s += float64(av) * float64(bv)
	}
	return s
}

// TestGEMMKernels checks every MatMul kernel family (GEMMTF32x3 on GPUs
// of sm_80 and later) in all three forms on
// shapes with odd edges (1x1x1, tiles cut in M, N and K, 47-wide outputs,
// K = 100 that is not a multiple of the k-tile, outputs 1 to 64 wide for
// the narrow tile), split-K weight gradients and the GNN layers' sizes: against a float64 host reference, and the new
// families against gemm_* on the same inputs. Outputs start as NaN, so an
// element no block writes fails the check.
func TestGEMMKernels(t *testing.T) {
	d := openOrSkip(t)
	r := rand.New(rand.NewPCG(11, 12))
	cases := []gemmCase{
		{1, 1, 1, false, false, 0},
		{1, 1, 1, true, false, 0},
		{1, 1, 1, false, true, 0},
		{127, 65, 129, false, false, 0},
		{127, 65, 129, true, false, 0},
		{127, 65, 129, false, true, 0},
		{1000, 256, 47, false, false, 0},
		{1000, 256, 47, true, false, 0},
		{1000, 256, 47, false, true, 0},
		{1000, 256, 48, false, false, 0},
		{260, 100, 256, false, false, 0},       // K = 100: partial last k-tile
		{256, 9000, 47, true, false, 0},        // split-K, element loads
		{128, 9000, 48, true, false, 0},        // split-K, float4 loads
		{129, 9001, 50, true, false, 0},        // split-K, odd everything
		{169343, 128, 256, false, false, 2000}, // arxiv layer x·W
		{128, 169343, 256, true, false, 300},   // its weight gradient Xᵀ·dY
		{169343, 256, 128, false, true, 2000},  // its input gradient dY·Wᵀ
		{169343, 48, 256, false, true, 2000},   // 48-wide output layer's dY·Wᵀ
		{100003, 256, 47, false, false, 2000},  // class layer x·W, several 256-row tiles
		{100003, 256, 48, false, false, 2000},  // the same with float4 loads
	}
	// Narrow outputs (GEMMv2N's 256x64 tile) in all three forms: odd M and
	// K (element loads, tiles cut in every dimension), K a multiple of 4
	// (float4 loads where N allows), and split-K weight gradients.
	for _, n := range []int{1, 7, 47, 48, 63, 64} {
		for _, mk := range [][2]int{{515, 131}, {257, 132}} {
			for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}} {
				cases = append(cases, gemmCase{mk[0], mk[1], n, tr[0], tr[1], 0})
			}
		}
		cases = append(cases, gemmCase{257, 9001, n, true, false, 0}, gemmCase{256, 9004, n, true, false, 0})
	}
	// GEMMv2S's skinny weight gradients (Xᵀ·dY, N <= 32): every register
	// width (N = 1, 7, 8 | 9, 16 | 17, 31, 32) and one past it (33 goes to
	// the narrow tile), M not a multiple of 32 or below it, K not a
	// multiple of the 64-row step, one chunk (no atomics) and many (every
	// output is checked for NaN; the 1433-row ones against a sample).
	for _, n := range []int{1, 7, 8, 9, 16, 17, 31, 32, 33} {
		cases = append(cases,
			gemmCase{1433, 2708, n, true, false, 4000}, // Cora's first layer
			gemmCase{16, 2708, n, true, false, 0},      // its second
			gemmCase{1, 131, n, true, false, 0},
			gemmCase{33, 63, n, true, false, 0},
			gemmCase{70, 1, n, true, false, 0})
	}
	cases = append(cases,
		gemmCase{1433, 2708, 48, true, false, 4000}, // GEMMv2S's split of K from 1024 on: narrow tile
		gemmCase{1433, 2708, 64, true, false, 4000}, // Cora's GAT layer (8 heads of 8)
		gemmCase{300, 1030, 130, true, false, 0},    // wide tile, K just past 1024
		gemmCase{128, 169343, 16, true, false, 300}, // arxiv-sized K, narrow output
		gemmCase{100, 65537, 7, true, false, 0})
	kerns := []tune.GEMMKernel{tune.GEMMv1, tune.GEMMv2, tune.GEMMv2K8, tune.GEMMv2N, tune.GEMMv2S}
	if d.hasBF16() {
		kerns = append(kerns, tune.GEMMTF32x3) // TF32 tensor cores: sm_80 and later
	}
	for _, c := range cases {
		ar, ac, br, bc := c.shapes()
		// Normal draws are never exactly zero in practice, so a missed
		// operand element changes the sums.
		a, b := randSlice(r, ar*ac), randSlice(r, br*bc)
		da, db := mustT(t, d, a, ar, ac), mustT(t, d, b, br, bc)

		// Reference elements: all, or a random sample (rows and columns
		// drawn independently, so every tile edge is likely hit).
		var idx [][2]int
		if c.sample == 0 {
			for i := 0; i < c.m; i++ {
				for j := 0; j < c.n; j++ {
					idx = append(idx, [2]int{i, j})
				}
			}
		} else {
			for s := 0; s < c.sample; s++ {
				idx = append(idx, [2]int{r.IntN(c.m), r.IntN(c.n)})
			}
			idx = append(idx, [2]int{c.m - 1, c.n - 1}, [2]int{0, 0})
		}
		want := make([]float64, len(idx))
		for s, ij := range idx {
			want[s] = c.ref(a, b, ij[0], ij[1])
		}

		var v1 []float32
		for _, kern := range kerns {
			dst := poisoned(t, d, c.m, c.n)
			if err := matMulWith(kern, dst, da, db, c.transA, c.transB, false); err != nil {
				t.Fatalf("matMulWith(%s, %+v) = %v", kern, c, err)
			}
			got := host(t, dst)
			dst.Free()
			nan := 0
			for _, v := range got {
				if math.IsNaN(float64(v)) {
					nan++
				}
			}
			if nan > 0 {
				t.Errorf("%s %dx%dx%d T=%v,%v: %d of %d outputs unwritten (NaN)", kern, c.m, c.k, c.n, c.transA, c.transB, nan, len(got))
				continue
			}
			sampled := make([]float32, len(idx))
			for s, ij := range idx {
				sampled[s] = got[ij[0]*c.n+ij[1]]
			}
			if e := relErr(sampled, want); e > 1e-5 {
				t.Errorf("%s %dx%dx%d T=%v,%v: relative error %.3g against float64, want <= 1e-5", kern, c.m, c.k, c.n, c.transA, c.transB, e)
			}
			if kern == tune.GEMMv1 {
				v1 = got
			} else if e := relErr(got, f64(v1)); e > 1e-5 {
				t.Errorf("%s %dx%dx%d T=%v,%v: relative difference %.3g from v1, want <= 1e-5", kern, c.m, c.k, c.n, c.transA, c.transB, e)
			}
		}
		da.Free()
		db.Free()
	}
}

// TestSkinnySplit checks the K chunks gemm_skinny*_tn's grid gets: whole
// 64-row steps that cover K exactly once, at least one chunk (K = 0
// included), about four blocks per SM where K is long enough, and chunks
// of at least 128 rows otherwise (rounding to whole steps may leave
// three blocks per SM, not four).
func TestSkinnySplit(t *testing.T) {
	for _, c := range []struct{ m, k, nsm int }{
		{1433, 2708, 132}, {16, 2708, 132}, {1, 131, 132}, {70, 1, 132}, {70, 0, 132},
		{128, 169343, 132}, {100000, 5000, 132}, {1433, 2708, 1}, {33, 63, 80},
	} {
		split, chunk := skinnySplit(c.m, c.k, c.nsm)
		if split < 1 || chunk < skinnyTK || chunk%skinnyTK != 0 {
			t.Errorf("skinnySplit(%d, %d, %d) = %d, %d: want at least one chunk of whole %d-row steps", c.m, c.k, c.nsm, split, chunk, skinnyTK)
			continue
		}
		if c.k > 0 && ((split-1)*chunk >= c.k || split*chunk < c.k) {
			t.Errorf("skinnySplit(%d, %d, %d) = %d chunks of %d: want them to cover K once, none empty", c.m, c.k, c.nsm, split, chunk)
		}
		blocks := (c.m + 31) / 32 * split
		if split > 1 && chunk < 128 {
			t.Errorf("skinnySplit(%d, %d, %d): chunks of %d rows, want >= 128", c.m, c.k, c.nsm, chunk)
		}
		if c.k >= 128*4*c.nsm && blocks < 3*c.nsm {
			t.Errorf("skinnySplit(%d, %d, %d): %d blocks, want >= %d", c.m, c.k, c.nsm, blocks, 3*c.nsm)
		}
		t.Logf("m %d k %d: %d chunks of %d rows, %d blocks", c.m, c.k, split, chunk, blocks)
	}
}

// TestVec4 checks when MatMul may take gemm2's float4 entry points.
func TestVec4(t *testing.T) {
	al := &Tensor{ptr: 256}
	odd := &Tensor{ptr: 260}
	for _, c := range []struct {
		m, n, k        int
		transA, transB bool
		ts             []*Tensor
		want           bool
	}{
		{169343, 256, 128, false, false, []*Tensor{al, al, al}, true},
		{169343, 47, 128, false, false, []*Tensor{al, al, al}, false},
		{169343, 256, 100, false, false, []*Tensor{al, al, al}, true},
		{169343, 256, 101, false, false, []*Tensor{al, al, al}, false},
		{129, 256, 101, true, false, []*Tensor{al, al, al}, false},
		{128, 256, 101, true, false, []*Tensor{al, al, al}, true},
		{128, 256, 101, false, true, []*Tensor{al, al, al}, false},
		{128, 256, 48, false, true, []*Tensor{al, al, al}, true},
		{128, 256, 48, false, true, []*Tensor{al, odd, al}, false},
	} {
		if got := vec4(c.m, c.n, c.k, c.transA, c.transB, c.ts...); got != c.want {
			t.Errorf("vec4(%d, %d, %d, %v, %v) = %v, want %v", c.m, c.n, c.k, c.transA, c.transB, got, c.want)
		}
	}
}

// TestMatMulGradOnDevice checks the weight gradients of x.MatMul(w) through
// the tensor API, on the device (GEMMv2S: the skinny kernel, K split)
// against the CPU, at the shapes of a GNN layer's weights: Cora's first
// layer (2708 rows, 1433 inputs, 16 outputs), its second (16 -> 7), a
// 1-wide output, K not a multiple of the kernel's 64-row step, and a
// 64-wide output (the narrow tile with K split from 1024 on). Both
// gradients, x's (dY·Wᵀ) and w's (Xᵀ·dY), within float32 summation error
// (5e-5 of the norm; a K chunk missed or added twice is 1e-1 or more).
func TestMatMulGradOnDevice(t *testing.T) {
	d := defaultOrSkip(t).be
	for _, c := range []struct{ rows, in, out int }{
		{2708, 1433, 16}, {2708, 16, 7}, {2708, 16, 1}, {1001, 37, 9}, {2708, 1433, 64}, {5000, 70, 32},
	} {
		x := tensor.Randn(1, c.rows, c.in)
		w := tensor.Randn(2, c.in, c.out)
		g := tensor.Randn(3, c.rows, c.out)
		run := func(dev tensor.Backend) (dx, dw []float32) {
			xi, wi, gi := x.Clone(), w.Clone(), g
			if dev != nil {
				xi, wi, gi = xi.To(dev), wi.To(dev), g.To(dev)
			}
			xi.SetRequiresGrad(true)
			wi.SetRequiresGrad(true)
			xi.MatMul(wi).Mul(gi).Sum().Backward()
			return xi.Grad().CPU().Data(), wi.Grad().CPU().Data()
		}
		dx, dw := run(d)
		cx, cw := run(nil)
		if e := relErr(dw, f64(cw)); e > 5e-5 || len(dw) != c.in*c.out {
			t.Errorf("%dx%d·%dx%d: w's gradient on the device differs from the CPU's by %.3g (relative), want <= 5e-5", c.rows, c.in, c.in, c.out, e)
		}
		if e := relErr(dx, f64(cx)); e > 5e-5 {
			t.Errorf("%dx%d·%dx%d: x's gradient on the device differs from the CPU's by %.3g (relative), want <= 5e-5", c.rows, c.in, c.in, c.out, e)
		}
	}
}

// TestGEMMTF32x3Launches checks on the recording driver which kernels
// MatMul launches under tune.GEMMTF32x3: sm80_gemm_tf32x3 of the product's
// form (nn, tn, nt) with its ten arguments (float4 loads only where an
// operand's rows are whole float4s) on a device with TF32 tensor cores,
// K split into whole 16-row chunks for a weight gradient; GEMMv2S's
// kernels for a skinny weight gradient and on a device without them.
func TestGEMMTF32x3Launches(t *testing.T) {
	params := ptxParams()
	for _, f := range []string{"nn", "tn", "nt"} {
		if k := "sm80_gemm_tf32x3_" + f; params[k] != 10 {
			t.Fatalf("%s has %d parameters in the PTX, want 10", k, params[k])
		}
	}
	for _, c := range []struct {
		sm80           bool
		m, k, n        int
		transA, transB bool
		kernel         string
		split          int
	}{
		{true, 169343, 128, 512, false, false, "sm80_gemm_tf32x3_nn", 1},
		{true, 128, 169343, 512, true, false, "sm80_gemm_tf32x3_tn", 2}, // 4 tiles on the recorder's 4 SMs
		{true, 169343, 256, 128, false, true, "sm80_gemm_tf32x3_nt", 1},
		{true, 1000, 47, 47, false, false, "sm80_gemm_tf32x3_nn", 1},
		{true, 128, 169343, 16, true, false, "gemm_skinny16_tn", 0},
		{false, 169343, 128, 512, false, false, "gemm2_nn_v4", 1},
	} {
		var d *Device
		var drv *recordDriver
		if c.sm80 {
			d, drv = openRecorderBF16(t)
		} else {
			d, drv = openRecorder(t)
		}
		ar, ac, br, bc := gemmCase{c.m, c.k, c.n, c.transA, c.transB, 0}.shapes()
		a, b, dst := emptyOn(t, d, ar, ac), emptyOn(t, d, br, bc), emptyOn(t, d, c.m, c.n)
		drv.trace = nil
		if err := matMulWith(tune.GEMMTF32x3, dst, a, b, c.transA, c.transB, false); err != nil {
			t.Fatal(err)
		}
		var got *graphNode
		for i := range drv.trace {
			if drv.trace[i].kernel != "" {
				got = &drv.trace[i]
			}
		}
		if got == nil || got.kernel != c.kernel {
			t.Errorf("%+v: launched %v, want %s", c, got, c.kernel)
			continue
		}
		if n := params[got.kernel]; len(got.args) != n {
			t.Errorf("%+v: %s launched with %d arguments, the PTX has %d", c, got.kernel, len(got.args), n)
		}
		if c.split > 0 && got.grid[2] != c.split {
			t.Errorf("%+v: %s split K %d ways, want %d", c, got.kernel, got.grid[2], c.split)
		}
		if strings.HasPrefix(got.kernel, "sm80_gemm_tf32x3_") {
			chunk, vecA, vecB := got.args[6], got.args[8], got.args[9]
			if chunk%16 != 0 || int(chunk)*got.grid[2] < c.k || int(chunk)*(got.grid[2]-1) >= c.k {
				t.Errorf("%+v: chunk %d for %d chunks of K = %d", c, chunk, got.grid[2], c.k)
			}
			lda, ldb := ac, bc
			if want := uint64(btoi(lda%4 == 0)); vecA != want {
				t.Errorf("%+v: vecA %d, want %d", c, vecA, want)
			}
			if want := uint64(btoi(ldb%4 == 0)); vecB != want {
				t.Errorf("%+v: vecB %d, want %d", c, vecB, want)
			}
		}
	}
}
