package prof_test

import (
	"fmt"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/prof"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

func ExampleTime() {
	a := tensor.Randn(1, 128, 128)
	s := prof.Time(func() { a.MatMul(a) }, prof.Options{Warmup: 1, Repeats: 5})
	fmt.Println(s.N, s.Min <= s.Median && s.Median <= s.Max)
	// Output: 5 true
}

func ExampleFitAmdahl() {
	// Speedups of a program that is 90% parallel.
	threads := []float64{1, 2, 4, 8}
	speedups := []float64{1, 1.818, 3.077, 4.706}
	a, _ := prof.FitAmdahl(threads, speedups)
	fmt.Printf("p = %.2f, limit %.1f×\n", a.P, a.Limit())
	// Output: p = 0.90, limit 10.0×
}

func ExampleStartOps() {
	x := tensor.Randn(1, 64, 32)
	w := tensor.Randn(2, 32, 8).SetRequiresGrad(true)
	p := prof.StartOps()
	x.MatMul(w).Sum().Backward()
	r := p.Stop()
	for _, row := range r.Rows {
		if row.Op == "MatMul" && !row.Backward {
			fmt.Println(row.Calls, "call,", row.FLOPs, "FLOPs")
		}
	}
	// Output: 1 call, 32768 FLOPs
}

func ExampleTrackMemory() {
	m := prof.TrackMemory(time.Millisecond)
	m.Mark("forward")
	buf := make([]float32, 4<<20) // 16 MiB
	m.Mark("backward")
	r := m.Stop()
	buf[0] = 1
	fmt.Println(r.PeakAbove() >= 16<<20, len(r.Marks))
	// Output: true 2
}

func ExampleAttained() {
	row := prof.OpRow{Op: "SpMM", Time: time.Millisecond, FLOPs: 1e6, Bytes: 4e6}
	fmt.Println(prof.Attained(row, prof.Peaks{GBs: 20, GFLOPs: 100}))
	// Output: SpMM: 1 GFLOP/s, 4 GB/s, 20% of roof (memory bound)
}
