package tensor

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BenchmarkMatMul measures the package's float32 kernel (through MatMul) at
// square sizes, and gonum's pure-Go float32 Sgemm on the same data for
// comparison; doc.go records the figures.
func BenchmarkMatMul(b *testing.B) {
	for _, n := range []int{64, 256, 512, 1024} {
		x := Randn(1, n, n)
		y := Randn(2, n, n)
		flop := 2 * float64(n) * float64(n) * float64(n)
		b.Run(fmt.Sprintf("own/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				x.MatMul(y)
			}
			b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("gonum/%d", n), func(b *testing.B) {
			c := make([]float32, n*n)
			for b.Loop() {
				gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x.data, n, y.data, n, 0, c, n)
			}
			b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
