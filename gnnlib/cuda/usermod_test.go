package cuda

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/graph/kernels"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// The learner's kernels of notebook 06: SAXPY, and an edge-parallel
// aggregation that adds each message with atomicAdd.
const userKernels = `extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		y[i] = a * x[i] + y[i];
	}
}

extern "C" __global__ void gcn_edge(int E, int F, const int* src, const int* dst, const float* w, const float* x, float* y) {
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= (long long)E * F) {
		return;
	}
	int e = (int)(t / F), c = (int)(t % F);
	atomicAdd(&y[(long long)dst[e] * F + c], w[e] * x[(long long)src[e] * F + c]);
}

extern "C" __global__ void scale_sum(double a, long long n, float* y) {
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		y[i] = (float)(a * (double)y[i]) + (float)n;
	}
}
`

// compileOrSkip compiles src for arch, skipping the test where neither
// NVRTC nor nvcc is present.
func compileOrSkip(t *testing.T, src, arch string) (string, string) {
	t.Helper()
	ptx, compiler, err := CompilePTX(src, arch)
	if errors.Is(err, ErrNoCompiler) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("CompilePTX: %v", err)
	}
	return ptx, compiler
}

// CompilePTX needs a compiler but no GPU: with nvcc (or NVRTC in a
// -tags cuda build) it makes PTX whose entries are the extern "C"
// kernels, and a compile error names the line. compute_75 is the oldest
// architecture CUDA 13 compiles for.
func TestCompilePTX(t *testing.T) {
	ptx, compiler := compileOrSkip(t, userKernels, "compute_75")
	t.Logf("compiled by %s", compiler)
	if got, want := ptxEntries(ptx), []string{"saxpy", "gcn_edge", "scale_sum"}; !slices.Equal(got, want) {
		t.Errorf("entries of the PTX = %v, want %v", got, want)
	}
	if !strings.Contains(ptx, ".target sm_75") {
		t.Errorf("PTX lacks .target sm_75:\n%.300s", ptx)
	}
	_, _, err := CompilePTX("extern \"C\" __global__ void k(float* y) {\n\ty[0] = undefined_name;\n}\n", "compute_75")
	if err == nil || !strings.Contains(err.Error(), "undefined_name") || !strings.Contains(err.Error(), "(2)") {
		t.Errorf("CompilePTX of a kernel using an undefined name = %v, want the compiler's log naming it on line 2", err)
	}
	if _, _, err := CompilePTX(userKernels, "sm_90"); err == nil || !strings.Contains(err.Error(), "compute_XY") {
		t.Errorf("CompilePTX with arch sm_90 = %v, want an error asking for compute_XY", err)
	}
}

func TestKernelArgumentSlots(t *testing.T) {
	m := &Module{dev: new(Device)}
	good := []struct {
		arg  any
		want uint64
	}{
		{int(-1), 0xffffffff},
		{int32(7), 7},
		{int64(-1), math.MaxUint64},
		{float32(1.5), uint64(math.Float32bits(1.5))},
		{2.5, math.Float64bits(2.5)},
		{uintptr(0x1000), 0x1000},
	}
	for _, g := range good {
		if got, err := m.slot(g.arg); err != nil || got != g.want {
			t.Errorf("slot(%T %v) = %#x, %v, want %#x", g.arg, g.arg, got, err, g.want)
		}
	}
	bad := []struct {
		arg  any
		want string
	}{
		{1 << 40, "does not fit a CUDA int"},
		{"x", "type string is not a kernel argument"},
		{tensor.Ones(2, 2), "is not on"},
		{(*Tensor)(nil), "nil *Tensor"},
	}
	for _, b := range bad {
		if _, err := m.slot(b.arg); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("slot(%T) = %v, want an error saying %q", b.arg, err, b.want)
		}
	}
}

// TestUserKernels compiles the learner's kernels for the GPU present,
// launches them on device tensors and compares with the CPU: SAXPY
// exactly, the atomic aggregation (which adds in any order) against
// graph.SpMM to a relative 1e-5, and the double and long long
// parameters. Then the PTX is loaded again through LoadPTX, and bad
// launches give errors.
func TestUserKernels(t *testing.T) {
	d := openOrSkip(t)
	m, err := d.Compile(userKernels)
	if errors.Is(err, ErrNoCompiler) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	t.Logf("%s: compiled by %s", d, m.Compiler())
	r := rand.New(rand.NewPCG(5, 6))

	const n = 100003
	x, y := randSlice(r, n), randSlice(r, n)
	dx, _ := d.FromHost(x, 1, n)
	dy, _ := d.FromHost(y, 1, n)
	if err := m.Launch("saxpy", (n+255)/256, 256, n, float32(2), dx, dy); err != nil {
		t.Fatal(err)
	}
	got, err := dy.Host()
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if want := 2*x[i] + y[i]; got[i] != want {
			t.Fatalf("saxpy[%d] = %v, want %v", i, got[i], want)
		}
	}

	gr, err := graph.ErdosRenyiM(5000, 40000, 7)
	if err != nil {
		t.Fatal(err)
	}
	const f = 32
	var src, dst []int32
	for v := 0; v < gr.NumNodes(); v++ {
		for _, u := range gr.Indices[gr.Indptr[v]:gr.Indptr[v+1]] {
			src, dst = append(src, int32(u)), append(dst, int32(v))
		}
	}
	w := make([]float32, len(src))
	for i := range w {
		w[i] = 1
	}
	xf := randSlice(r, gr.NumNodes()*f)
	dsrc, _ := d.Int32s(src)
	ddst, _ := d.Int32s(dst)
	dw, _ := d.FromHost(w, 1, len(w))
	dxf := tensor.Wrap(xf, gr.NumNodes(), f).To(d.Backend()) // a *tensor.Tensor argument
	dyf, _ := d.Zeros(gr.NumNodes(), f)
	work := len(src) * f
	if err := m.Launch("gcn_edge", (work+255)/256, 256, len(src), f, dsrc, ddst, dw, dxf, dyf); err != nil {
		t.Fatal(err)
	}
	agg, err := dyf.Host()
	if err != nil {
		t.Fatal(err)
	}
	ref := make([]float32, gr.NumNodes()*f)
	kernels.SpMM(gr, ref, xf, f, nil)
	for i := range ref {
		if e := math.Abs(float64(agg[i]-ref[i])) / math.Max(1, math.Abs(float64(ref[i]))); e > 1e-5 {
			t.Fatalf("gcn_edge[%d] = %v, graph.SpMM %v", i, agg[i], ref[i])
		}
	}
	if back, err := dsrc.Host(); err != nil || !slices.Equal(back, src) {
		t.Errorf("Int32s round trip: %v (equal %v)", err, slices.Equal(back, src))
	}

	// The same PTX loaded as text; double and long long parameters.
	m2, err := d.LoadPTX(m.PTX())
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	ones, _ := d.FromHost([]float32{1, 2, 3}, 1, 3)
	if err := m2.Launch("scale_sum", 1, 32, 0.5, int64(3), ones); err != nil {
		t.Fatal(err)
	}
	if got, _ := ones.Host(); !slices.Equal(got, []float32{3.5, 4, 4.5}) {
		t.Errorf("scale_sum(0.5, 3) = %v, want [3.5 4 4.5]", got)
	}

	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"unknown kernel", m.Launch("sxpy", 1, 32, n, float32(2), dx, dy), "sxpy"},
		{"host tensor", m.Launch("saxpy", 1, 32, n, float32(2), tensor.Ones(1, n), dy), "is not on"},
		{"block too large", m.Launch("saxpy", 1, 2048, n, float32(2), dx, dy), "1024"},
		{"bad PTX", func() error { _, err := d.LoadPTX(".version 99.0\n.target sm_90\n"); return err }(), "load PTX"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, c.err, c.want)
		}
	}
	if err := d.Synchronize(); err != nil {
		t.Errorf("after the refused launches the device reports %v", err)
	}
}

func TestUserKernelsWithoutCUDA(t *testing.T) {
	if Built {
		t.Skip("built with -tags cuda")
	}
	var d Device
	if _, err := d.LoadPTX(".version 7.0"); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("LoadPTX without the cuda tag = %v, want ErrNoCUDA", err)
	}
	if _, err := d.Compile("extern \"C\" __global__ void k() {}"); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Compile without the cuda tag = %v, want ErrNoCUDA", err)
	}
}
