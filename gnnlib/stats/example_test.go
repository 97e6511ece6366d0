package stats_test

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/stats"
)

// Two methods scored on the same five seeds: the per-seed differences are
// small but consistent, so their interval excludes zero although the
// seeds' spread (SD) is much larger than the difference of the means.
func ExamplePaired() {
	fp32 := []float64{80.1, 81.5, 79.2, 82.0, 80.8}
	int8 := []float64{79.9, 81.2, 79.0, 81.9, 80.5}
	a, _ := stats.Summarise(fp32)
	d, _ := stats.Paired(fp32, int8)
	fmt.Printf("FP32: %s, SD %.2f\n", a.Format("%.2f"), a.SD)
	fmt.Printf("FP32 − INT8 per seed: %s\n", d.Format("%.2f"))
	fmt.Println("seeds tell them apart:", d.Excludes(0))
	// Output:
	// FP32: 80.72 ± 0.50 (95 % CI [79.34, 82.10], n = 5), SD 1.11
	// FP32 − INT8 per seed: 0.22 ± 0.04 (95 % CI [0.12, 0.32], n = 5)
	// seeds tell them apart: true
}

func ExampleSummarise() {
	s, err := stats.Summarise([]float64{0.2, 0.4, 0.3})
	fmt.Println(s, err)
	_, err = stats.Summarise([]float64{1})
	fmt.Println(err)
	// Output:
	// 0.3 ± 0.058 (95 % CI [0.0516, 0.548], n = 3) <nil>
	// stats: fewer than two values have no spread
}
