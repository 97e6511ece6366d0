package main

import (
	"fmt"
	"math"
	"math/cmplx"
)

func main() {
	a := complex(3, 4)
	b := 1 - 2i
	fmt.Println(a, b, a+b, a*b, a/b)
	fmt.Println(real(a), imag(a), cmplx.Abs(a))
	fmt.Printf("%T %T\n", a, complex64(b))
	fmt.Printf("%.2f %v\n", cmplx.Sqrt(-1), cmplx.Conj(a))
	e := cmplx.Exp(complex(0, math.Pi))
	fmt.Printf("%.3f\n", e)
	var c64 complex64 = 1.5 + 2i
	fmt.Println(c64*c64, a == complex(3, 4))
	roots := make([]complex128, 4)
	for k := range roots {
		roots[k] = cmplx.Rect(1, float64(k)*math.Pi/2)
	}
	for _, r := range roots {
		fmt.Printf("(%.0f,%.0f) ", real(r), imag(r))
	}
	fmt.Println()
}
