package viz

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// roundTicks are ticks at round values: multiples of a step of 1, 2, 2.5
// or 5 times a power of ten, chosen so that between 4 and 8 of them fall
// in the axis range (0, 0.2, 0.4, …, never 3, 9, 15 or −2.5, −1, 0.5),
// labelled in the shortest form ("500", not "500.00"), with unlabelled
// minor ticks halfway.
type roundTicks struct{}

// roundStep returns the step of roundTicks for the range [lo, hi].
func roundStep(lo, hi float64) float64 {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return 0
	}
	mag := math.Pow(10, math.Floor(math.Log10(span)))
	best, bestScore := mag, math.Inf(1)
	for _, m := range []float64{0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10} {
		step := m * mag
		n := math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1
		// Prefer about six ticks; 2.5 (a step of two digits) only when
		// no step of one digit gives a count in range (its worst score
		// there is 2).
		score := math.Abs(n - 6)
		if n < 4 || n > 8 {
			score += 100
		}
		if m == 0.25 || m == 2.5 {
			score += 3
		}
		if score < bestScore {
			best, bestScore = step, score
		}
	}
	return best
}

func (roundTicks) Ticks(lo, hi float64) []plot.Tick {
	step := roundStep(lo, hi)
	if step == 0 {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	var ts []plot.Tick
	first := math.Ceil(lo/step - 1e-9)
	for k := first; k*step <= hi+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 6, 64)})
	}
	// Minor ticks halfway, inside the range.
	for k := first - 1; k*step <= hi; k++ {
		if m := (k + 0.5) * step; m >= lo && m <= hi {
			ts = append(ts, plot.Tick{Value: m})
		}
	}
	return ts
}

// log2Ticks are the ticks of a base-2 axis over doublings (1, 2, 4, 8,
// 16 layers): one at each power of two in the range, labelled with its
// value, at most about eight labelled.
type log2Ticks struct{}

func (log2Ticks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	a, b := math.Ceil(math.Log2(lo)-1e-9), math.Floor(math.Log2(hi)+1e-9)
	every := int(math.Max(1, math.Ceil((b-a+1)/8)))
	var ts []plot.Tick
	for e := a; e <= b; e++ {
		t := plot.Tick{Value: math.Pow(2, e)}
		if int(e-a)%every == 0 {
			t.Label = strconv.FormatFloat(t.Value, 'g', 6, 64)
		}
		ts = append(ts, t)
	}
	return ts
}
