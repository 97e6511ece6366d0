package stats

import (
	"errors"
	"math"
	"testing"
)

// TestT95 compares the quantiles with the printed tables of Student's t
// (two-sided 95 %), and with the normal's 1.96 for large df.
func TestT95(t *testing.T) {
	for _, tc := range []struct {
		df   int
		want float64
	}{{1, 12.706}, {2, 4.303}, {4, 2.776}, {9, 2.262}, {29, 2.045}, {100000, 1.960}} {
		if got := T95(tc.df); math.Abs(got-tc.want) > 1e-3 {
			t.Errorf("T95(%d) = %.4f, want %.3f", tc.df, got, tc.want)
		}
	}
	if got := T95(0); !math.IsNaN(got) {
		t.Errorf("T95(0) = %v, want NaN", got)
	}
}

// TestSummarise checks the summary against its formulas computed by hand.
func TestSummarise(t *testing.T) {
	s, err := Summarise([]float64{1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	sd := math.Sqrt(2.5)
	se := sd / math.Sqrt(5)
	if s.N != 5 || s.Mean != 3 || math.Abs(s.SD-sd) > 1e-12 || math.Abs(s.SE-se) > 1e-12 {
		t.Errorf("Summarise(1..5) = %+v, want mean 3, sd %v, se %v", s, sd, se)
	}
	if h := 2.776 * se; math.Abs(s.Hi-3-h) > 1e-3 || math.Abs(3-s.Lo-h) > 1e-3 {
		t.Errorf("Summarise(1..5) interval [%v, %v], want 3 ± %v", s.Lo, s.Hi, h)
	}
}

func TestSummariseErrors(t *testing.T) {
	for _, xs := range [][]float64{nil, {1}} {
		if _, err := Summarise(xs); !errors.Is(err, ErrTooFew) {
			t.Errorf("Summarise(%v) error = %v, want ErrTooFew", xs, err)
		}
	}
	if _, err := Summarise([]float64{1, math.NaN()}); err == nil {
		t.Error("Summarise with NaN: no error")
	}
	if _, err := Paired([]float64{1, 2}, []float64{1}); err == nil {
		t.Error("Paired of unequal lengths: no error")
	}
}

// TestPairedBeatsUnpaired is the reason the package exists: two methods
// whose per-seed results share a large seed effect differ by a small,
// consistent amount. The difference of means is far smaller than either
// sample's SD, yet the paired interval excludes zero.
func TestPairedBeatsUnpaired(t *testing.T) {
	seedEffect := []float64{70, 78, 74, 81, 69, 76, 80}
	a := make([]float64, len(seedEffect))
	b := make([]float64, len(seedEffect))
	for i, s := range seedEffect {
		a[i] = s + 0.5 + 0.05*float64(i%3)
		b[i] = s
	}
	sa, _ := Summarise(a)
	d, err := Paired(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := sa.Mean - 76.857; math.Abs(diff) > 1 || d.Mean > sa.SD/5 {
		t.Fatalf("setup: mean difference %v against SD %v", d.Mean, sa.SD)
	}
	if !d.Excludes(0) {
		t.Errorf("Paired = %v, want an interval that excludes 0", d)
	}
	// And a difference that flips sign from seed to seed is not a finding.
	noise, err := Paired([]float64{1, 2, 3, 4, 5}, []float64{1.5, 1.5, 3.5, 3.5, 5})
	if err != nil {
		t.Fatal(err)
	}
	if noise.Excludes(0) {
		t.Errorf("Paired of sign-flipping differences = %v, want an interval containing 0", noise)
	}
}
