package main

import (
	"fmt"
	"math"
)

func main() {
	fmt.Printf("%.4f %.4f %.4f\n", math.Sqrt(2), math.Cbrt(27), math.Pow(2, 0.5))
	fmt.Printf("%.4f %.4f %.4f\n", math.Sin(math.Pi/6), math.Cos(0), math.Atan2(1, 1))
	fmt.Printf("%.4f %.4f %.4f\n", math.Log(math.E), math.Log2(1024), math.Log10(0.001))
	fmt.Println(math.Abs(-3.2), math.Ceil(1.1), math.Mod(7, 3), math.Remainder(7, 3))
	fmt.Println(math.Hypot(3, 4), math.Max(1, math.NaN()), math.Min(-0.0, 0))
	fr, exp := math.Frexp(8)
	fmt.Println(fr, exp, math.Ldexp(0.5, 4))
	ip, f := math.Modf(-3.75)
	fmt.Println(ip, f, math.Signbit(-0.0), math.IsInf(math.Inf(-1), -1))
	fmt.Println(math.Float64bits(1.0), math.Float32frombits(0x40490fdb))
	fmt.Println(math.MaxInt8, math.MinInt16, math.MaxUint16)
}
