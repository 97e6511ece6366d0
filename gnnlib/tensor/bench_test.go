package tensor

import (
	"fmt"
	"testing"
)

// coraLike returns a Cora-shaped sparse feature matrix: 2708×1433 with about
// 1.3% non-zeros (binary bag-of-words features).
func coraLike() *Tensor {
	rng := NewRNG(1)
	rows, cols := 2708, 1433
	indptr := make([]int, rows+1)
	var indices []int
	var values []float32
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			if rng.Float32() < 0.013 {
				indices = append(indices, c)
				values = append(values, 1)
			}
		}
		indptr[r+1] = len(indices)
	}
	return SparseFromCSR(rows, cols, indptr, indices, values)
}

func BenchmarkSparseMatMul(b *testing.B) {
	x := coraLike()
	w := Randn(2, 1433, 16).SetRequiresGrad(true)
	b.Run("forward", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x.MatMul(w)
		}
		b.ReportMetric(float64(x.NNZ())*16*2*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("forward+backward", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x.MatMul(w).Sum().Backward()
		}
	})
	b.Run("dense", func(b *testing.B) {
		d := x.ToDense()
		for b.Loop() {
			d.MatMul(w)
		}
	})
}

// BenchmarkConv2D runs LeNet-5's two convolutions on a batch of 64 MNIST
// images, forward and backward.
func BenchmarkConv2D(b *testing.B) {
	for _, c := range []struct {
		name string
		x, w []int
		pad  int
	}{
		{"lenet1", []int{64, 1, 28, 28}, []int{6, 1, 5, 5}, 2},
		{"lenet2", []int{64, 6, 14, 14}, []int{16, 6, 5, 5}, 0},
	} {
		x := Randn(1, c.x...)
		w := Randn(2, c.w...).SetRequiresGrad(true)
		bias := Zeros(c.w[0]).SetRequiresGrad(true)
		b.Run(c.name+"/forward", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Conv2D(x, w, bias, 1, c.pad)
			}
		})
		b.Run(c.name+"/forward+backward", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Conv2D(x, w, bias, 1, c.pad).Sum().Backward()
			}
		})
	}
}

func BenchmarkElementwise(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 20} {
		x, y := Randn(1, n), Randn(2, n)
		b.Run(fmt.Sprintf("Add/%d", n), func(b *testing.B) {
			b.SetBytes(int64(12 * n))
			for b.Loop() {
				x.Add(y)
			}
		})
		b.Run(fmt.Sprintf("ReLU/%d", n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				x.ReLU()
			}
		})
	}
}
