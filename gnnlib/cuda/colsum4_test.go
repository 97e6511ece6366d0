package cuda

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// TestColKernelChoice checks which form of a column reduction colKernel
// picks: the _v4 kernels (256 threads, chunks of colVec4Chunk rows) only
// with tune.ColSumVec4 on, a width that is a multiple of 4 and every
// tensor's rows 16-byte aligned; otherwise the scalar kernels' grid.
func TestColKernelChoice(t *testing.T) {
	defer func(v bool) { tune.ColSumVec4 = v }(tune.ColSumVec4)
	at := func(ptr uintptr, rows, cols int) *Tensor { return &Tensor{ptr: ptr, Rows: rows, Cols: cols} }
	for _, c := range []struct {
		on   bool
		x    *Tensor
		more []*Tensor
		want string
	}{
		{true, at(256, 1000, 256), nil, "act_backward_colsum_v4"},
		{true, at(256, 1000, 256), []*Tensor{at(512, 1000, 256), nil}, "act_backward_colsum_v4"},
		{true, at(256, 1000, 258), nil, "act_backward_colsum"},
		{true, at(260, 1000, 256), nil, "act_backward_colsum"},
		{true, at(256, 1000, 256), []*Tensor{at(264, 1000, 256)}, "act_backward_colsum"},
		{false, at(256, 1000, 256), nil, "act_backward_colsum"},
	} {
		tune.ColSumVec4 = c.on
		k := colKernel("act_backward_colsum", c.x, c.more...)
		if k.name != c.want {
			t.Errorf("switch %v, %dx%d at %d: %s, want %s", c.on, c.x.Rows, c.x.Cols, c.x.ptr, k.name, c.want)
		}
		rows := k.grid[1] * k.chunk
		if k.grid[0]*128 < c.x.Cols || rows < c.x.Rows || rows-k.chunk >= c.x.Rows {
			t.Errorf("%s: grid %v with chunks of %d rows does not cover %dx%d exactly", k.name, k.grid, k.chunk, c.x.Rows, c.x.Cols)
		}
		if v4 := k.name == c.want && c.want != "act_backward_colsum"; v4 && (k.block[0] != 256 || k.chunk != colVec4Chunk) {
			t.Errorf("%s: block %v, chunk %d, want 256 threads and %d rows", k.name, k.block, k.chunk, colVec4Chunk)
		}
	}
}

// TestColSumVec4 checks the _v4 column reductions (tune.ColSumVec4)
// against a float64 reference on the host and against the scalar
// kernels: ColSum; ActBackwardColSum, also in place, whose gradient must
// be the scalar kernel's bit for bit; and actBackwardColSumUnbias, whose
// rebuilt pre-activation must be too. The shapes take several row chunks,
// widths that are not a multiple of 128 and a view whose rows are not
// 16-byte aligned (the scalar kernels then).
func TestColSumVec4(t *testing.T) {
	d := openOrSkip(t)
	defer func(v bool) { tune.ColSumVec4 = v }(tune.ColSumVec4)
	r := rand.New(rand.NewPCG(11, 4))
	for _, sh := range [][2]int{{1, 4}, {5, 48}, {257, 128}, {1000, 132}, {3001, 256}, {700, 30}} {
		n, f := sh[0], sh[1]
		x := mustT(t, d, randSlice(r, n*f), n, f)
		gs := randSlice(r, n*f)
		bias := mustT(t, d, randSlice(r, f), 1, f)
		for _, c := range []struct {
			relu bool
			p    float32
		}{{true, 0}, {true, 0.5}, {false, 0}} {
			what := fmt.Sprintf("%dx%d, relu %v, p %v", n, f, c.relu, c.p)
			y := poisoned(t, d, n, f)
			if err := BiasAct(y, x, nil, c.relu, c.p, 9); err != nil {
				t.Fatal(err)
			}
			hy := host(t, y)
			// The host's float64 reference of dx, its column sums and
			// the rebuilt pre-activation.
			keep := 1 / (1 - float64(c.p))
			masked := c.relu || c.p > 0
			wantDX, wantDB, wantXO := make([]float64, n*f), make([]float64, f), make([]float64, n*f)
			hb := host(t, bias)
			for i, v := range hy {
				m, xo := 1.0, float64(v)-float64(hb[i%f])
				if masked {
					m, xo = 0, 0
					if v != 0 {
						m, xo = keep, float64(v)*(1-float64(c.p))-float64(hb[i%f])
					}
				}
				wantDX[i] = float64(gs[i]) * m
				wantDB[i%f] += wantDX[i]
				wantXO[i] = xo
			}
			var byForm [2][]float32 // dx of the scalar and _v4 forms
			var xoForm [2][]float32
			for form, on := range []bool{false, true} {
				tune.ColSumVec4 = on
				// near checks got against want within tol, for op.
				near := func(op string, got *Tensor, want []float64, tol float64) []float32 {
					h := host(t, got)
					if e := relErr(h, want); e > tol {
						t.Errorf("%s(%s, v4 %v): relative error %.3g", op, what, on, e)
					}
					return h
				}
				g := mustT(t, d, gs, n, f)
				dx, db, xo := poisoned(t, d, n, f), poisoned(t, d, 1, f), poisoned(t, d, n, f)
				if err := ActBackwardColSum(dx, db, y, g, c.relu, c.p); err != nil {
					t.Fatalf("ActBackwardColSum(%s, v4 %v) = %v", what, on, err)
				}
				byForm[form] = near("ActBackwardColSum dx", dx, wantDX, 1e-6)
				near("ActBackwardColSum db", db, wantDB, 1e-5)
				cs := poisoned(t, d, 1, f)
				if err := ColSum(cs, dx); err != nil {
					t.Fatal(err)
				}
				near("ColSum", cs, wantDB, 1e-5)
				if err := actBackwardColSumUnbias(dx, db, xo, y, g, bias, c.relu, c.p); err != nil {
					t.Fatalf("actBackwardColSumUnbias(%s, v4 %v) = %v", what, on, err)
				}
				xoForm[form] = near("actBackwardColSumUnbias pre-activation", xo, wantXO, 1e-6)
				near("actBackwardColSumUnbias db", db, wantDB, 1e-5)
				// In place: dx = g.
				if err := ActBackwardColSum(g, db, y, g, c.relu, c.p); err != nil {
					t.Fatal(err)
				}
				if h := host(t, g); !equalF32(h, byForm[form]) {
					t.Errorf("ActBackwardColSum(%s, v4 %v) in place differs from the separate output", what, on)
				}
				near("ActBackwardColSum in place db", db, wantDB, 1e-5)
			}
			if !equalF32(byForm[0], byForm[1]) {
				t.Errorf("ActBackwardColSum(%s): the _v4 gradient is not the scalar kernel's bit for bit", what)
			}
			if !equalF32(xoForm[0], xoForm[1]) {
				t.Errorf("actBackwardColSumUnbias(%s): the _v4 pre-activation is not the scalar kernel's bit for bit", what)
			}
		}
	}
	// Rows that are not 16-byte aligned: a view one value into x.
	tune.ColSumVec4 = true
	const n, f = 300, 128
	hx := randSlice(r, n*f+1)
	x := mustT(t, d, hx, 1, n*f+1)
	view := &Tensor{buf: x.buf, ptr: x.ptr + 4, Rows: n, Cols: f}
	if k := colKernel("col_sum", view); k.name != "col_sum" {
		t.Fatalf("a view at +4 bytes takes %s", k.name)
	}
	want := make([]float64, f)
	for i, v := range hx[1:] {
		want[i%f] += float64(v)
	}
	cs := poisoned(t, d, 1, f)
	if err := ColSum(cs, view); err != nil {
		t.Fatal(err)
	}
	if e := relErr(host(t, cs), want); e > 1e-5 {
		t.Errorf("ColSum of an unaligned view: relative error %.3g", e)
	}
}

// equalF32 reports whether a and b hold the same bits (sameBits).
func equalF32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameBits(a[i], b[i]) {
			return false
		}
	}
	return true
}
