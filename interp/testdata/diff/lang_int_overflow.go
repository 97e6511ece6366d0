package main

import (
	"fmt"
	"math"
)

func main() {
	var a int8 = 127
	a++
	fmt.Println(a)
	var b uint16 = 0
	b--
	fmt.Println(b)
	var c int32 = math.MaxInt32
	c += 10
	fmt.Println(c)
	var d int64 = math.MinInt64
	fmt.Println(-d == d, d-1)
	x := 1 << 62
	fmt.Println(x*4, uint64(x)*4)
	var u uint = 3
	fmt.Println(u-5 > 0)
	h := uint32(2166136261)
	for _, ch := range []byte("hash me") {
		h ^= uint32(ch)
		h *= 16777619
	}
	fmt.Println(h)
}
