package cuda

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/internal/half"
)

// smemDriver is the recording driver with a shared-memory limit, as the
// CUDA driver reports it (sharedLimiter): an H100's 227 KB a block.
type smemDriver struct {
	*recordDriver
	most int
}

func (s *smemDriver) sharedMax() int { return s.most }

// openSmemRecorder is openRecorder on a smemDriver.
func openSmemRecorder(t *testing.T, most int) (*Device, *smemDriver) {
	drv := &smemDriver{recordDriver: &recordDriver{}, most: most}
	d := openOn(t, drv, "record (sm_90, no GPU)")
	return d, drv
}

// smemStep launches four kernels, two of them with dynamic shared memory,
// and waits for the device.
func smemStep(t *testing.T, d *Device, x *Tensor, step int) {
	t.Helper()
	for i, shared := range []int{0, 100 << 10, 0, 200 << 10} {
		if err := d.launchShared("k"+string(rune('a'+i)), [3]int{2, 1, 1}, [3]int{256, 1, 1}, shared, x, step); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
}

// TestLaunchSharedMemory checks that a launch's dynamic shared memory
// reaches the driver, launched one by one and as a node of a replayed CUDA
// graph (GraphReplay), that launch3 still asks for none, and that a size
// above the device's limit is refused with an error naming the kernel and
// both sizes, after which the device still works.
func TestLaunchSharedMemory(t *testing.T) {
	defer pinAutoReplay(false)()
	defer func(old bool) { GraphReplay = old }(GraphReplay)
	const most = 227 << 10
	want := []int{0, 100 << 10, 0, 200 << 10}
	for _, replay := range []bool{false, true} {
		GraphReplay = replay
		d, drv := openSmemRecorder(t, most)
		x, err := d.Empty(4, 4)
		if err != nil {
			t.Fatal(err)
		}
		drv.trace = nil
		const steps = 4
		for s := range steps {
			smemStep(t, d, x, s)
		}
		if len(drv.trace) != steps*len(want) {
			t.Fatalf("replay %v: %d launches, want %d", replay, len(drv.trace), steps*len(want))
		}
		for i, n := range drv.trace {
			if n.shared != want[i%len(want)] {
				t.Errorf("replay %v: launch %d (%s) had %d bytes of dynamic shared memory, want %d", replay, i, n.kernel, n.shared, want[i%len(want)])
			}
		}
		if st := d.ReplayStats(); replay && (st.Built != 1 || st.Replays != steps-1) {
			t.Errorf("replay: %+v, want one graph built and %d replays", st, steps-1)
		}

		drv.trace = nil
		err = d.launchShared("sm80_big", [3]int{1, 1, 1}, [3]int{256, 1, 1}, most+1, x)
		if err == nil {
			t.Fatalf("replay %v: a launch asking %d bytes of shared memory of a device that allows %d was accepted", replay, most+1, most)
		}
		if !errors.Is(err, errSharedMemory) {
			t.Errorf("replay %v: error %v, want errSharedMemory", replay, err)
		}
		for _, s := range []string{"sm80_big", "232449", "232448"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("replay %v: error %q does not name %s", replay, err, s)
			}
		}
		if err := d.launchShared("kneg", [3]int{1, 1, 1}, [3]int{256, 1, 1}, -1, x); err == nil {
			t.Errorf("replay %v: a negative shared-memory size was accepted", replay)
		}
		if err := d.launch3("kc", [3]int{1, 1, 1}, [3]int{32, 1, 1}, x); err != nil {
			t.Fatal(err)
		}
		if err := d.Synchronize(); err != nil {
			t.Fatalf("replay %v: the device after a refused launch: %v", replay, err)
		}
		if len(drv.trace) != 1 || drv.trace[0].kernel != "kc" || drv.trace[0].shared != 0 {
			t.Errorf("replay %v: after the refused launches the device ran %+v, want kc alone without shared memory", replay, drv.trace)
		}
	}
}

// TestGEMMBF16BigLaunch checks, without a GPU, that MatMulBF16 under
// tune.GEMMBF16Big sends the dynamic-shared-memory kernels' sizes with
// their launches (the B-resident 256-wide kernel on an H100's 227 KB; the
// streaming one where only an A100's 163 KB is allowed), and runs the
// 48 KB pipelined kernel, without dynamic shared memory, where the device
// allows too little or does not say.
func TestGEMMBF16BigLaunch(t *testing.T) {
	defer func(k tune.GEMMBF16Kernel) { tune.GEMMBF16 = k }(tune.GEMMBF16)
	tune.GEMMBF16 = tune.GEMMBF16Big
	for _, c := range []struct {
		most   int
		kernel string
		shared int
	}{
		{232448, "sm80_gemm_bf16dr_nn_256", 204800},
		{166912, "sm80_gemm_bf16d_nn_256", 163840},
		{101376, "sm80_gemm_bf16p_nn_128", 0},
		{0, "sm80_gemm_bf16p_nn_128", 0},
	} {
		d, drv := openSmemRecorder(t, c.most)
		d.smem = c.most
		a, err := d.EmptyBF16(3000, 128)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := d.EmptyBF16(128, 512)
		y, _ := d.Empty(3000, 512)
		drv.trace = nil
		if err := MatMulBF16(y, a, b, false, false); err != nil {
			t.Fatal(err)
		}
		if err := d.Synchronize(); err != nil {
			t.Fatal(err)
		}
		if len(drv.trace) != 1 || drv.trace[0].kernel != c.kernel || drv.trace[0].shared != c.shared {
			t.Errorf("limit %d: launched %+v, want %s with %d bytes of dynamic shared memory", c.most, drv.trace, c.kernel, c.shared)
		}
	}
}

// TestGEMMBF16AutoChoice checks tune.GEMMBF16Auto's choice on a device
// with an H100's shared memory: on compute capability 8.x the large-tile
// kernels for an inner dimension of 256 or more, the pipelined kernel
// below; on 9.0 the wgmma kernels where they take the product (n a
// multiple of 8 and K of 8, or a tn product), else the same.
func TestGEMMBF16AutoChoice(t *testing.T) {
	defer func(k tune.GEMMBF16Kernel) { tune.GEMMBF16 = k }(tune.GEMMBF16)
	tune.GEMMBF16 = tune.GEMMBF16Auto
	for _, c := range []struct {
		desc           string
		n, k           int
		transA, transB bool
		kernel         string
	}{
		{"record (sm_80, no GPU)", 512, 100, false, false, "sm80_gemm_bf16p_nn_128"},
		{"record (sm_80, no GPU)", 512, 128, false, false, "sm80_gemm_bf16p_nn_128"},
		{"record (sm_80, no GPU)", 512, 248, false, false, "sm80_gemm_bf16p_nn_128"},
		{"record (sm_80, no GPU)", 512, 256, false, false, "sm80_gemm_bf16dr_nn_256"},
		{"record (sm_80, no GPU)", 512, 1024, false, false, "sm80_gemm_bf16d_nn_256"},
		{"record (sm_90, no GPU)", 512, 100, false, false, "sm80_gemm_bf16p_nn_128"}, // K not a multiple of 8
		{"record (sm_90, no GPU)", 512, 128, false, false, "sm90_gemm_bf16_wg_nt"},
		{"record (sm_90, no GPU)", 512, 1024, false, false, "sm90_gemm_bf16_wg_nt"},
		{"record (sm_90, no GPU)", 512, 256, false, true, "sm90_gemm_bf16_wg_nt"},
		{"record (sm_90, no GPU)", 47, 256, false, false, "sm80_gemm_bf16dr_nn_64"}, // n not a multiple of 8
		{"record (sm_90, no GPU)", 512, 3000, true, false, "sm90_gemm_bf16_wg_tn"},
	} {
		d, _ := openSmemRecorder(t, 232448)
		d.desc, d.smem = c.desc, 232448
		m := 3000
		lda, ldb := c.k, c.n
		if c.transA {
			m, lda = 512, 512
		}
		if c.transB {
			ldb = c.k
		}
		a, err := d.EmptyBF16(m, c.k)
		if err != nil {
			t.Fatal(err)
		}
		p := d.gemmBF16Choose(m, c.n, c.k, c.transA, c.transB, a.ptr, lda, a.ptr, ldb)
		if p.kernel != c.kernel {
			t.Errorf("%s, %dx%dx%d %s: tune.GEMMBF16Auto chose %s, want %s", c.desc, m, c.k, c.n, gemmForm(c.transA, c.transB), p.kernel, c.kernel)
		}
		a.Free()
	}
}

// noSM90aDriver is a recording driver whose sm90a.ptx did not load (a
// driver that could not compile it).
type noSM90aDriver struct{ *recordDriver }

func (noSM90aDriver) sm90aLoaded() bool { return false }

// TestGEMMBF16NoSM90a checks that on a GPU of compute capability 9.0
// whose driver did not load sm90a.ptx the bfloat16 GEMM keeps to the
// mma.sync kernels, under tune.GEMMBF16Auto and tune.GEMMBF16WG alike,
// rather than launching a kernel that is not there.
func TestGEMMBF16NoSM90a(t *testing.T) {
	defer func(k tune.GEMMBF16Kernel) { tune.GEMMBF16 = k }(tune.GEMMBF16)
	d := openOn(t, noSM90aDriver{&recordDriver{}}, "record (sm_90, no GPU)")
	a, err := d.EmptyBF16(3000, 128)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Free()
	for _, kind := range []tune.GEMMBF16Kernel{tune.GEMMBF16Auto, tune.GEMMBF16WG, tune.GEMMBF16WGDirect} {
		tune.GEMMBF16 = kind
		if p := d.gemmBF16Choose(3000, 512, 128, false, false, a.ptr, 128, a.ptr, 512); strings.HasPrefix(p.kernel, "sm90_") {
			t.Errorf("%s: chose %s, whose module did not load", kind, p.kernel)
		}
	}
}

// TestMatMulBF16BigReplay runs GEMMBF16Big's kernels, whose blocks take
// 160-200 KB of dynamic shared memory, as nodes of replayed CUDA graphs
// (GraphReplay) on the device: the B-resident nn kernel with both outputs,
// the streamed one (k past the panel) and the split-K tn one (a fill node
// and atomic sums). The replayed steps must build a graph, replay it
// without the driver refusing a node, and give the eager step's results:
// bit for bit where each value is one block's sum, to float32 rounding
// of the magnitudes summed where split-K adds partial sums in any order.
func TestMatMulBF16BigReplay(t *testing.T) {
	d := openOrSkip(t)
	defer pinAutoReplay(false)()
	defer func(old bool, k tune.GEMMBF16Kernel) { GraphReplay, tune.GEMMBF16 = old, k }(GraphReplay, tune.GEMMBF16)
	tune.GEMMBF16 = tune.GEMMBF16Big
	r := rand.New(rand.NewPCG(51, 52))
	up := func(rows, cols int) *BF16Tensor {
		_, h := bf16Operand(r, rows*cols)
		x, err := d.BF16FromHost(h, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Free() })
		return x
	}
	a, b, c, w := up(2000, 128), up(128, 512), up(2000, 300), up(300, 256)
	y16, err := d.EmptyBF16(2000, 512)
	if err != nil {
		t.Fatal(err)
	}
	defer y16.Free()
	y, _ := d.Empty(2000, 512)
	z, _ := d.Empty(2000, 256)
	g, _ := d.Empty(128, 512)
	defer freeAll([]*Tensor{y, z, g})
	if p := d.gemmBF16Choose(2000, 512, 128, false, false, a.ptr, 128, b.ptr, 512); p.shared == 0 {
		t.Skipf("%v: GEMMBF16Big runs %s here (the device allows %d bytes of shared memory a block)", d, p.kernel, d.smem)
	}
	step := func() [][]float32 {
		for _, err := range []error{
			MatMulBF16Out(y16, a, b, false, false),
			MatMulBF16(y, a, b, false, false),
			MatMulBF16(z, c, w, false, false),
			MatMulBF16(g, a, y16, true, false),
		} {
			skipNoBF16(t, err)
			if err != nil {
				t.Fatal(err)
			}
		}
		h16, err := y16.Host()
		if err != nil {
			t.Fatal(err)
		}
		f := make([]float32, len(h16))
		for i, v := range h16 {
			f[i] = half.BF16(v).Float32()
		}
		return [][]float32{f, host(t, y), host(t, z), host(t, g)}
	}
	GraphReplay = false
	want := step()
	// g = aᵀ·y16 is summed from split-K parts by atomic adds in any
	// order: each value may differ by a few float32 roundings of the
	// parts, at most 2⁻²⁰ of Σₖ |a[k][i]·y16[k][j]| here.
	ah, err := a.Host()
	if err != nil {
		t.Fatal(err)
	}
	splitKTol := make([]float64, 128*512)
	for k := range 2000 {
		for i := range 128 {
			ak := math.Abs(float64(half.BF16(ah[k*128+i]).Float32()))
			for j, y := range want[0][k*512 : (k+1)*512] {
				splitKTol[i*512+j] += ak * math.Abs(float64(y))
			}
		}
	}
	for i := range splitKTol {
		splitKTol[i] = math.Ldexp(splitKTol[i], -20)
	}
	GraphReplay = true
	before := d.ReplayStats()
	for s := range 4 {
		got := step()
		for o := range got {
			for i := range got[o] {
				tol := 0.0
				if o == 3 {
					tol = splitKTol[i]
				}
				if e := math.Abs(float64(got[o][i]) - float64(want[o][i])); !(e <= tol) {
					t.Fatalf("step %d, output %d [%d]: replayed %v, eager %v", s, o, i, got[o][i], want[o][i])
				}
			}
		}
	}
	st := d.ReplayStats()
	t.Logf("%v: %+v", d, st)
	if st.Built == before.Built || st.Replays-before.Replays < 2 || st.Failed != before.Failed {
		t.Errorf("replay stats %+v after %+v: want a graph built, replayed at least twice, none refused", st, before)
	}
}
