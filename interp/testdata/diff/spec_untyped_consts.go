package main

import (
	"fmt"
	"math"
)

const huge = 1 << 200
const third = 1.0 / 3
const r = 'x'

func main() {
	fmt.Println(huge >> 195)
	var f32 float32 = third
	var f64 float64 = third
	fmt.Printf("%.10f %.10f\n", f32, f64)
	x := r + 1
	fmt.Printf("%T %v %c\n", x, x, x)
	var b byte = r
	fmt.Println(b)
	const c = 10 / 4
	const d = 10 / 4.0
	fmt.Println(c, d)
	fmt.Println(math.MaxInt64, uint64(math.MaxUint64))
	var i8 int8 = -128
	fmt.Println(i8, -i8, i8-1)
	const typed int16 = 300
	fmt.Printf("%T %d\n", typed*2, typed*2)
	fmt.Println(math.Pi*2 > 6, 1e3 == 1000)
}
