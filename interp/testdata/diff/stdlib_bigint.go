package main

import (
	"fmt"
	"math/big"
)

func main() {
	f := big.NewInt(1)
	for i := int64(1); i <= 25; i++ {
		f.Mul(f, big.NewInt(i))
	}
	fmt.Println(f)
	r := new(big.Rat).SetFrac64(1, 3)
	r.Add(r, big.NewRat(1, 6))
	fmt.Println(r)
}
