// A 96×96 matrix product in three nested loops over []float64.
package main

import (
	"fmt"
	"time"
)

const n = 96

func matmul(c, a, b []float64) {
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += a[i*n+k] * b[k*n+j]
			}
			c[i*n+j] = s
		}
	}
}

func main() {
	a, b, c := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	for i := range a {
		a[i] = float64(i%7) - 3
		b[i] = float64(i%5) * 0.5
	}
	best := time.Duration(1 << 62)
	for range 3 {
		t := time.Now()
		matmul(c, a, b)
		best = min(best, time.Since(t))
	}
	sum := 0.0
	for _, v := range c {
		sum += v
	}
	fmt.Println("sum =", sum)
	fmt.Println("elapsed_ns", best.Nanoseconds())
}
