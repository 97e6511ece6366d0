package main

import (
	"fmt"
	"math"
	"strconv"
)

func main() {
	vals := []float64{0, 1, -1.5, 3.14159265, 1e21, 1e-7, 123456789.0, 0.1 + 0.2}
	for _, v := range vals {
		fmt.Printf("%v|%g|%.3f|%e|%8.2f|%-8.1f|\n", v, v, v, v, v, v)
	}
	fmt.Println(math.Inf(1), math.Inf(-1), math.NaN())
	fmt.Println(float32(0.1), float64(float32(0.1)))
	fmt.Println(strconv.FormatFloat(2.5, 'f', -1, 64), strconv.FormatFloat(2.5, 'e', 3, 32))
	fmt.Println(math.Round(2.5), math.Round(-2.5), math.Floor(-2.5), math.Trunc(-2.7))
	fmt.Printf("%08.3f|%+.2f|% .2f|%x\n", 3.14159, 2.0, 2.0, 1.0)
	fmt.Println(math.MaxFloat32, math.SmallestNonzeroFloat64)
	var z float64
	fmt.Println(1/z > 0, -1/z, z/z == z/z)
}
