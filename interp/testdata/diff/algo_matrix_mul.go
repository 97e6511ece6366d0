package main

import "fmt"

type Matrix [][]float64

func NewMatrix(r, c int) Matrix {
	m := make(Matrix, r)
	for i := range m {
		m[i] = make([]float64, c)
	}
	return m
}

func (a Matrix) Mul(b Matrix) Matrix {
	out := NewMatrix(len(a), len(b[0]))
	for i := range a {
		for j := range b[0] {
			for k := range b {
				out[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return out
}

func Identity(n int) Matrix {
	m := NewMatrix(n, n)
	for i := range n {
		m[i][i] = 1
	}
	return m
}

func (a Matrix) Pow(n int) Matrix {
	result := Identity(len(a))
	base := a
	for n > 0 {
		if n&1 == 1 {
			result = result.Mul(base)
		}
		base = base.Mul(base)
		n >>= 1
	}
	return result
}

func main() {
	fib := Matrix{{1, 1}, {1, 0}}
	fmt.Println(fib.Pow(10))
	a := Matrix{{1, 2, 3}, {4, 5, 6}}
	b := Matrix{{7, 8}, {9, 10}, {11, 12}}
	fmt.Println(a.Mul(b))
	fmt.Printf("%.2f\n", Matrix{{0.5}}.Mul(Matrix{{0.25}}))
}
