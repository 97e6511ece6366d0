package stats

import (
	"errors"
	"fmt"
	"math"
)

// ErrTooFew is returned for a sample of fewer than two values, which has
// no spread.
var ErrTooFew = errors.New("stats: fewer than two values have no spread")

// Summary describes a sample: its size, mean, standard deviation (n − 1 in
// the denominator), the standard error of the mean and a 95 % confidence
// interval [Lo, Hi] for the mean.
type Summary struct {
	N      int
	Mean   float64
	SD     float64
	SE     float64
	Lo, Hi float64
}

// Summarise returns the Summary of xs. It fails for fewer than two values
// (ErrTooFew) and for NaN or infinite values.
func Summarise(xs []float64) (Summary, error) {
	n := len(xs)
	s := Summary{N: n, Mean: math.NaN(), SD: math.NaN(), SE: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return s, fmt.Errorf("stats: value %d is %v", i, x)
		}
	}
	if n == 0 {
		return s, ErrTooFew
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	s.Mean = sum / float64(n)
	if n < 2 {
		return s, ErrTooFew
	}
	var ss float64
	for _, x := range xs {
		d := x - s.Mean
		ss += d * d
	}
	s.SD = math.Sqrt(ss / float64(n-1))
	s.SE = s.SD / math.Sqrt(float64(n))
	h := T95(n-1) * s.SE
	s.Lo, s.Hi = s.Mean-h, s.Mean+h
	return s, nil
}

// Paired returns the Summary of the per-seed differences a[i] − b[i]. The
// two samples must have the same length: a[i] and b[i] are the two methods
// measured on the same seed.
func Paired(a, b []float64) (Summary, error) {
	if len(a) != len(b) {
		return Summary{}, fmt.Errorf("stats: paired samples of %d and %d values; pair them by seed", len(a), len(b))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return Summarise(d)
}

// Excludes reports whether the 95 % interval lies wholly above or below v:
// for a paired difference, Excludes(0) says the seeds tell the two methods
// apart.
func (s Summary) Excludes(v float64) bool {
	return s.Lo > v || s.Hi < v
}

// String formats the summary as "mean ± SE (95 % CI [lo, hi], n = N)" with
// three significant digits.
func (s Summary) String() string {
	return fmt.Sprintf("%.3g ± %.2g (95 %% CI [%.3g, %.3g], n = %d)", s.Mean, s.SE, s.Lo, s.Hi, s.N)
}

// Format is String with the numbers printed by verb (such as "%.2f"), for
// values with a known scale such as percentages.
func (s Summary) Format(verb string) string {
	f := func(v float64) string { return fmt.Sprintf(verb, v) }
	return fmt.Sprintf("%s ± %s (95 %% CI [%s, %s], n = %d)", f(s.Mean), f(s.SE), f(s.Lo), f(s.Hi), s.N)
}

// T95 returns the two-sided 95 % quantile of Student's t distribution with
// df degrees of freedom (the t with P(|T| ≤ t) = 0.95), found by bisection
// on the distribution function. It returns NaN for df < 1.
func T95(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	lo, hi := 0.0, 1000.0
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if tCDF(mid, float64(df)) < 0.975 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tCDF is Student's t distribution function at t ≥ 0 with nu degrees of
// freedom, through the regularised incomplete beta function:
// P(T ≤ t) = 1 − I_x(ν/2, 1/2)/2 with x = ν/(ν + t²).
func tCDF(t, nu float64) float64 {
	x := nu / (nu + t*t)
	return 1 - 0.5*incBeta(nu/2, 0.5, x)
}

// incBeta is the regularised incomplete beta function I_x(a, b), by its
// continued fraction (modified Lentz), using the symmetry
// I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges slowly.
func incBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	lga, _ := math.Lgamma(a)
	lgb, _ := math.Lgamma(b)
	lgab, _ := math.Lgamma(a + b)
	front := math.Exp(lgab - lga - lgb + a*math.Log(x) + b*math.Log(1-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaFraction(b, a, 1-x)/b
	}
	return front * betaFraction(a, b, x) / a
}

func betaFraction(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
