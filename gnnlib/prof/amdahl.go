package prof

import (
	"errors"
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/interrupt"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// ErrFit is wrapped by the errors of FitAmdahl and MeasureSpeedup when
// the data cannot give a fit.
var ErrFit = errors.New("prof: cannot fit")

// Amdahl is Amdahl's law fitted to measured speedups: a fraction P of the
// work runs in parallel, the rest serially, so n workers give a speedup of
// 1 / ((1−P) + P/n).
type Amdahl struct {
	// P is the fitted parallel fraction, in [0, 1].
	P float64
	// RMSE is the root-mean-square error of the fit on 1/S.
	RMSE float64
}

// FitAmdahl fits Amdahl's law to speedups measured with threads workers
// (speedup[i] with threads[i], relative to one worker) by least squares
// on 1/S = (1−p) + p/n. With x = 1 − 1/n and y = 1 − 1/S the model is
// y = p·x, whose least-squares solution is p = Σxy / Σx².
//
// The measurement with one thread carries no information (S = 1 by
// definition), and one other thread count determines p exactly, with no
// test of the law. So FitAmdahl refuses, with an error wrapping ErrFit,
// unless there are at least two distinct thread counts above one: three
// thread counts with 1, more than a 2-core machine can measure.
func FitAmdahl(threads, speedups []float64) (Amdahl, error) {
	if len(threads) != len(speedups) {
		return Amdahl{}, fmt.Errorf("%w: %d thread counts but %d speedups", ErrFit, len(threads), len(speedups))
	}
	distinct := map[float64]bool{}
	for _, n := range threads {
		if n > 1 {
			distinct[n] = true
		}
	}
	if len(distinct) < 2 {
		return Amdahl{}, fmt.Errorf("%w: speedups at %v threads: Amdahl's law needs two or more thread counts above 1 (one point determines p exactly)", ErrFit, threads)
	}
	var sxy, sxx float64
	for i, n := range threads {
		s := speedups[i]
		if n < 1 || s <= 0 || math.IsNaN(s) || math.IsInf(s, 0) {
			return Amdahl{}, fmt.Errorf("%w: bad point (threads %v, speedup %v)", ErrFit, n, s)
		}
		x, y := 1-1/n, 1-1/s
		sxy += x * y
		sxx += x * x
	}
	if sxx == 0 {
		return Amdahl{}, fmt.Errorf("%w: need a measurement with more than one thread", ErrFit)
	}
	a := Amdahl{P: math.Min(1, math.Max(0, sxy/sxx))}
	var se float64
	for i, n := range threads {
		d := 1/a.Speedup(n) - 1/speedups[i]
		se += d * d
	}
	a.RMSE = math.Sqrt(se / float64(len(threads)))
	return a, nil
}

// Speedup returns the speedup the law predicts with n workers.
func (a Amdahl) Speedup(n float64) float64 { return 1 / ((1 - a.P) + a.P/n) }

// Limit returns the speedup with infinitely many workers, 1/(1−P)
// (+Inf when P is 1).
func (a Amdahl) Limit() float64 {
	if a.P >= 1 {
		return math.Inf(1)
	}
	return 1 / (1 - a.P)
}

// String formats the fit, e.g. "p = 0.912, limit 11.4×".
func (a Amdahl) String() string {
	return fmt.Sprintf("p = %.3f, limit %.3g×", a.P, a.Limit())
}

// Speedups holds a speedup measurement.
type Speedups struct {
	// Threads are the thread counts measured, as asked.
	Threads []int
	// Times are the timings at each thread count.
	Times []Stats
	// Speedup[i] is the median time with one thread over the median time
	// with Threads[i].
	Speedup []float64
	// Base is the timing with one thread.
	Base Stats
}

// ThreadsFloat returns Threads as float64s, for FitAmdahl and plots.
func (s Speedups) ThreadsFloat() []float64 {
	f := make([]float64, len(s.Threads))
	for i, n := range s.Threads {
		f[i] = float64(n)
	}
	return f
}

// Fit fits Amdahl's law to the measurement.
func (s Speedups) Fit() (Amdahl, error) { return FitAmdahl(s.ThreadsFloat(), s.Speedup) }

// MeasureSpeedup times fn with one thread and with each of threads (via
// SetThreads, restored afterwards) and returns the speedups over one
// thread. Going beyond runtime.GOMAXPROCS(0) threads measures the
// scheduler, not the hardware.
func MeasureSpeedup(fn func(), threads []int, o Options) (Speedups, error) {
	if len(threads) == 0 {
		return Speedups{}, fmt.Errorf("%w: no thread counts", ErrFit)
	}
	for _, n := range threads {
		if n < 1 {
			return Speedups{}, fmt.Errorf("%w: thread count %d", ErrFit, n)
		}
	}
	prev := tensor.SetThreads(1)
	defer tensor.SetThreads(prev)
	s := Speedups{Threads: append([]int(nil), threads...)}
	s.Base = Time(fn, o)
	for _, n := range threads {
		if err := interrupt.Check("prof: MeasureSpeedup"); err != nil {
			return Speedups{}, err
		}
		tensor.SetThreads(n)
		st := s.Base
		if n != 1 {
			st = Time(fn, o)
		}
		s.Times = append(s.Times, st)
		s.Speedup = append(s.Speedup, float64(s.Base.Median)/float64(st.Median))
	}
	return s, nil
}
