package quant_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/quant"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

func TestNewParamsFormulas(t *testing.T) {
	tests := []struct {
		s      quant.Scheme
		bits   int
		lo, hi float32
		wantS  float32
		wantZ  int32
		qmin   int32
		qmax   int32
	}{
		{quant.Symmetric, 8, -2, 1.27, 2.0 / 127, 0, -127, 127}, // S = α/127, α = max|x|
		{quant.Affine, 8, -1, 1.55, 2.55 / 255, 100, 0, 255},    // S = (α−β)/255, Z = round(−β/S)
		{quant.Affine, 8, 0.5, 2, 2.0 / 255, 0, 0, 255},         // range widened to hold zero
		{quant.Symmetric, 4, -0.7, 0.3, 0.1, 0, -7, 7},          // S = α/7
		{quant.Affine, 4, -1.5, 0, 0.1, 15, 0, 15},              // S = (α−β)/15
		{quant.Symmetric, 8, 0, 0, 1, 0, -127, 127},             // empty range stays defined
	}
	for _, tc := range tests {
		p, err := quant.NewParams(tc.s, tc.bits, tc.lo, tc.hi)
		if err != nil {
			t.Fatalf("NewParams(%v, %d, %g, %g): %v", tc.s, tc.bits, tc.lo, tc.hi, err)
		}
		if math.Abs(float64(p.Scale[0]-tc.wantS)) > 1e-6 || p.Zero[0] != tc.wantZ || p.QMin() != tc.qmin || p.QMax() != tc.qmax {
			t.Errorf("NewParams(%v, %d, %g, %g) = S %g Z %d [%d, %d], want S %g Z %d [%d, %d]",
				tc.s, tc.bits, tc.lo, tc.hi, p.Scale[0], p.Zero[0], p.QMin(), p.QMax(), tc.wantS, tc.wantZ, tc.qmin, tc.qmax)
		}
	}
}

func TestParamsErrors(t *testing.T) {
	if _, err := quant.NewParams(quant.Symmetric, 3, -1, 1); !errors.Is(err, quant.ErrBits) {
		t.Errorf("NewParams(bits 3) error = %v, want ErrBits", err)
	}
	if _, err := quant.NewParams(quant.Affine, 8, 1, -1); !errors.Is(err, quant.ErrRange) {
		t.Errorf("NewParams([1, -1]) error = %v, want ErrRange", err)
	}
	x := tensor.Zeros(2, 3)
	if _, err := quant.ParamsFor(x, quant.Symmetric, 8, 2); !errors.Is(err, quant.ErrRange) {
		t.Errorf("ParamsFor(axis 2 of 2-D) error = %v, want ErrRange", err)
	}
	p, _ := quant.ParamsFor(x, quant.Symmetric, 8, 0)
	if _, err := quant.Quantize(tensor.Zeros(3, 2), p); !errors.Is(err, quant.ErrRange) {
		t.Errorf("Quantize(3 rows with 2 channel params) error = %v, want ErrRange", err)
	}
}

// TestRoundTripBounds checks |x − x'| <= S/2 inside the clipping range for
// every scheme, width and axis, and zero mapping to zero exactly.
func TestRoundTripBounds(t *testing.T) {
	x := tensor.NewRNG(7).Normal(0.3, 1, 16, 33)
	x.Data()[5] = 0
	for _, s := range []quant.Scheme{quant.Symmetric, quant.Affine} {
		for _, bits := range []int{8, 4} {
			for _, axis := range []int{quant.PerTensor, 0, 1} {
				p, err := quant.ParamsFor(x, s, bits, axis)
				if err != nil {
					t.Fatal(err)
				}
				q, err := quant.Quantize(x, p)
				if err != nil {
					t.Fatal(err)
				}
				y := q.Dequantize()
				maxS := slices.Max(p.Scale)
				st, err := quant.Compare(x, y)
				if err != nil {
					t.Fatal(err)
				}
				if st.MaxAbs > float64(maxS)/2*1.0001 {
					t.Errorf("%v INT%d axis %d: max |err| = %g, want <= S/2 = %g", s, bits, axis, st.MaxAbs, maxS/2)
				}
				if y.Data()[5] != 0 {
					t.Errorf("%v INT%d axis %d: zero dequantizes to %g, want 0", s, bits, axis, y.Data()[5])
				}
				wantBytes := x.Len()
				if bits == 4 {
					wantBytes = (x.Len() + 1) / 2
				}
				if got := len(q.Packed()); got != wantBytes {
					t.Errorf("%v INT%d: %d bytes of codes, want %d", s, bits, got, wantBytes)
				}
				minSQNR := 40.0
				if bits == 4 {
					minSQNR = 10
				}
				if st.SQNR < minSQNR {
					t.Errorf("%v INT%d axis %d: SQNR %.1f dB, want >= %.0f", s, bits, axis, st.SQNR, minSQNR)
				}
				for _, c := range q.Codes() {
					if c < p.QMin() || c > p.QMax() {
						t.Fatalf("%v INT%d: code %d outside [%d, %d]", s, bits, c, p.QMin(), p.QMax())
					}
				}
			}
		}
	}
}

func TestQuantizeClips(t *testing.T) {
	p, _ := quant.NewParams(quant.Symmetric, 8, -1, 1)
	x := tensor.FromSlice([]float32{-5, -1, 0.5, 1, 7}, 5)
	q, err := quant.Quantize(x, p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := q.Codes(), []int32{-127, -127, 64, 127, 127}; !slices.Equal(got, want) {
		t.Errorf("Codes() = %v, want %v", got, want)
	}
}

func TestCompareMetrics(t *testing.T) {
	x := tensor.FromSlice([]float32{1, -2, 3, 0}, 4)
	y := tensor.FromSlice([]float32{1, -2, 2, 0.5}, 4)
	s, err := quant.Compare(x, y)
	if err != nil {
		t.Fatal(err)
	}
	wantSQNR := 10 * math.Log10(14/1.25)
	if s.MSE != 1.25/4 || s.MaxAbs != 1 || math.Abs(s.SQNR-wantSQNR) > 1e-9 {
		t.Errorf("Compare = %+v, want MSE 0.3125, max 1, SQNR %.4f", s, wantSQNR)
	}
	if _, err := quant.Compare(x, tensor.Zeros(3)); !errors.Is(err, quant.ErrRange) {
		t.Errorf("Compare(4 vs 3 values) error = %v, want ErrRange", err)
	}
}

// TestFakeQuantSTE checks the straight-through estimator: gradient one
// inside the clipping range, zero outside.
func TestFakeQuantSTE(t *testing.T) {
	p, _ := quant.NewParams(quant.Affine, 8, 0, 2.55) // clip range [0, 2.55]
	x := tensor.FromSlice([]float32{-1, 0.013, 1, 2.55, 3}, 5).SetRequiresGrad(true)
	y, err := quant.FakeQuant(x, p)
	if err != nil {
		t.Fatal(err)
	}
	y.Sum().Backward()
	if got, want := x.Grad().Data(), []float32{0, 1, 1, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("FakeQuant gradient = %v, want %v", got, want)
	}
	if got, want := y.Data(), []float32{0, 0.01, 1, 2.55, 2.55}; !tensor.AllClose(y, tensor.FromSlice(want, 5), 1e-5, 1e-6) {
		t.Errorf("FakeQuant = %v, want %v", got, want)
	}
}

func TestFakeQuantRowsKeepsProtectedRows(t *testing.T) {
	p, _ := quant.NewParams(quant.Symmetric, 4, -1, 1)
	x := tensor.FromSlice([]float32{0.33, 0.33, 0.33, 0.33}, 2, 2).SetRequiresGrad(true)
	y, err := quant.FakeQuantRows(x, p, []bool{false, true})
	if err != nil {
		t.Fatal(err)
	}
	d := y.Data()
	if math.Abs(float64(d[0])-2.0/7) > 1e-6 || d[2] != 0.33 {
		t.Errorf("FakeQuantRows = %v, want row 0 on the INT4 grid (%g) and row 1 unchanged", d, 2.0/7)
	}
	if _, err := quant.FakeQuantRows(x, p, []bool{true}); !errors.Is(err, quant.ErrRange) {
		t.Errorf("FakeQuantRows(mask of 1 row for 2) error = %v, want ErrRange", err)
	}
}

func TestLSQGradients(t *testing.T) {
	x := tensor.FromSlice([]float32{-3, 0.26, 3}, 3).SetRequiresGrad(true)
	s := tensor.FromSlice([]float32{0.1}, 1).SetRequiresGrad(true)
	y, err := quant.LSQ(x, s, 4) // Q = 7: range ±0.7
	if err != nil {
		t.Fatal(err)
	}
	y.Sum().Backward()
	if got, want := x.Grad().Data(), []float32{0, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("LSQ dx = %v, want %v", got, want)
	}
	// ds = g·(−7 + (round(2.6) − 2.6) + 7) with g = 1/sqrt(3·7).
	want := (3 - 2.6) / math.Sqrt(21)
	if got := float64(s.Grad().Data()[0]); math.Abs(got-want) > 1e-5 {
		t.Errorf("LSQ ds = %g, want %g", got, want)
	}
}

func TestObservers(t *testing.T) {
	vals := make([]float32, 1000)
	for i := range vals {
		vals[i] = float32(i)/999*2 - 1 // [-1, 1]
	}
	vals[0] = -5 // one outlier
	tests := []struct {
		name   string
		o      quant.Observer
		lo, hi [2]float32 // accepted intervals for lo and hi
	}{
		{"MinMax", &quant.MinMax{}, [2]float32{-5, -5}, [2]float32{1, 1}},
		{"MovingAverage", &quant.MovingAverage{Momentum: 0.5}, [2]float32{-5, -5}, [2]float32{1, 1}},
		{"Percentile", &quant.Percentile{P: 99}, [2]float32{-0.99, -0.97}, [2]float32{0.97, 0.99}},
		{"MSEOptimal", &quant.MSEOptimal{Scheme: quant.Symmetric, Bits: 4}, [2]float32{-4.9, -0.5}, [2]float32{0.1, 1}},
	}
	for _, tc := range tests {
		tc.o.Observe(vals)
		lo, hi := tc.o.Range()
		if lo < tc.lo[0] || lo > tc.lo[1] || hi < tc.hi[0] || hi > tc.hi[1] {
			t.Errorf("%s.Range() = [%g, %g], want lo in %v, hi in %v", tc.name, lo, hi, tc.lo, tc.hi)
		}
		tc.o.Reset()
		if lo, hi := tc.o.Range(); lo != 0 || hi != 0 {
			t.Errorf("%s.Range() after Reset = [%g, %g], want [0, 0]", tc.name, lo, hi)
		}
	}
	// The MSE-optimal 4-bit range clips the outlier: its error is lower
	// than min-max's.
	mse := &quant.MSEOptimal{Bits: 4}
	mse.Observe(vals)
	mm := &quant.MinMax{}
	mm.Observe(vals)
	x := tensor.FromSlice(vals, len(vals))
	pm, _ := quant.ObserverParams(mse, quant.Symmetric, 4)
	pn, _ := quant.ObserverParams(mm, quant.Symmetric, 4)
	em, _ := quant.Measure(x, pm)
	en, _ := quant.Measure(x, pn)
	if em.MSE >= en.MSE {
		t.Errorf("MSEOptimal INT4 MSE %g >= MinMax %g", em.MSE, en.MSE)
	}
	// A moving average damps a later outlier batch.
	ma := &quant.MovingAverage{Momentum: 0.1}
	ma.Observe([]float32{-1, 1})
	ma.Observe([]float32{-1, 11})
	if _, hi := ma.Range(); math.Abs(float64(hi)-2) > 1e-6 {
		t.Errorf("MovingAverage hi = %g, want 2", hi)
	}
}

func TestHistogramAndReportString(t *testing.T) {
	p, _ := quant.NewParams(quant.Symmetric, 4, -1, 1)
	d, err := quant.Histogram(tensor.FromSlice([]float32{-1, 0, 0.1, 1}, 4), p, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Counts, []int{1, 0, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("Histogram counts = %v, want %v", got, want)
	}
	if len(d.Grid) != 15 || d.Grid[7] != 0 {
		t.Errorf("Histogram grid = %v, want 15 points with 0 in the middle", d.Grid)
	}
	// The HTML table of a Report is viz/display/render's (TestQuantReport).
	r := &quant.Report{Model: "m<1>", Rows: []quant.Row{{Variant: "FP32", Accuracy: 0.5, Bytes: 400}, {Variant: "INT8 PTQ", Accuracy: 0.49, Bytes: 100}}}
	if !strings.Contains(r.String(), "INT8 PTQ") {
		t.Errorf("String() = %q, want the variant names", r.String())
	}
}
