package main

import (
	"fmt"
	"math"
	"math/bits"
)

func main() {
	fmt.Println(math.Round(2.5), math.Trunc(-2.7), math.Mod(7, 3), math.Pow(2, 10), math.Hypot(3, 4))
	fmt.Printf("%.4f %.4f\n", math.Pi, math.E)
	fmt.Println(bits.OnesCount(255), bits.LeadingZeros64(1), bits.Len(8))
	fmt.Println(math.MaxInt8, math.MinInt16, math.MaxUint16)
}
