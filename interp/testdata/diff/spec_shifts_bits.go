package main

import (
	"fmt"
	"math/bits"
)

func main() {
	var x uint8 = 0b1011_0110
	fmt.Printf("%08b %08b %08b %08b\n", x, x&0x0f, x|0x01, x^0xff)
	fmt.Printf("%08b %08b\n", x&^0b0110, ^x)
	fmt.Printf("%08b %08b\n", x<<2, x>>3)
	s := uint(3)
	fmt.Println(1<<s, int64(1)<<40, -16>>2)
	var i int = -1
	fmt.Println(uint32(i), uint8(i))
	fmt.Println(bits.OnesCount8(x), bits.LeadingZeros32(1), bits.TrailingZeros(8))
	fmt.Println(bits.Reverse8(0b0000_0001), bits.RotateLeft8(0b1000_0001, 1))
	hi, lo := bits.Mul64(1<<63, 4)
	fmt.Println(hi, lo)
	fmt.Println(bits.Len(255), bits.Len(256))
	var big uint64 = 1<<64 - 1
	fmt.Println(big, big>>63, int64(big>>1))
	fmt.Printf("%x %X %o %O %#x\n", 3054, 3054, 8, 8, 255)
}
