package main

import (
	"fmt"
	"math/big"
)

func factorial(n int64) *big.Int {
	r := big.NewInt(1)
	for i := int64(2); i <= n; i++ {
		r.Mul(r, big.NewInt(i))
	}
	return r
}

func main() {
	f := factorial(30)
	fmt.Println(f, f.BitLen(), len(f.String()))
	a, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	b := big.NewInt(987654321)
	q, m := new(big.Int).DivMod(a, b, new(big.Int))
	fmt.Println(q, m)
	fmt.Println(new(big.Int).Exp(big.NewInt(2), big.NewInt(100), nil))
	fmt.Println(new(big.Int).GCD(nil, nil, big.NewInt(84), big.NewInt(36)))
	fmt.Println(big.NewInt(97).ProbablyPrime(10), a.Cmp(b), a.Sign())
	r := big.NewRat(1, 3)
	r.Add(r, big.NewRat(1, 6))
	fmt.Println(r, r.FloatString(5))
	x := new(big.Float).SetPrec(100).SetInt64(2)
	x.Sqrt(x)
	fmt.Println(x.Text('f', 25))
	fmt.Printf("%x %s\n", big.NewInt(255), big.NewInt(-42).Text(2))
}
