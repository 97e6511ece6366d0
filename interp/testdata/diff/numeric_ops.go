package main

import (
	"fmt"
	"math"
)

func main() {
	var u8 uint8 = 250
	u8 += 10
	var i8 int8 = 127
	i8++
	fmt.Println(u8, i8)
	fmt.Println(7/2, -7/2, 7%3, -7%3, 7.0/2)
	fmt.Println(1<<10, 0xff&0x0f, 0xf0|0x0f, 6^3, 6&^3)
	fmt.Println(math.Sqrt(2), math.Floor(-1.5), math.MaxInt64, math.Inf(1), -math.Inf(1))
	x := 0.1 + 0.2
	fmt.Println(math.NaN() == math.NaN(), int(x*13), float64(7)/2, uint32(1<<32-1))
	x = 0.1 + 0.2
	fmt.Println(x, x == 0.3, math.Abs(x-0.3) < 1e-9)
	var c complex128 = complex(1, 2)
	fmt.Println(c*c, real(c), imag(c))
}
