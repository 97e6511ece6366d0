package main

import (
	"fmt"
	"strings"
)

type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64
}

type Stringish interface{ ~string }

type Celsius int
type Name string

func Sum[T Integer](xs ...T) T {
	var t T
	for _, x := range xs {
		t += x
	}
	return t
}

func Upper[S Stringish](s S) S { return S(strings.ToUpper(string(s))) }

func Abs[T Integer](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

func main() {
	fmt.Println(Sum(1, 2, 3), Sum[Celsius](10, 20))
	c := Sum(Celsius(5), Celsius(-7))
	fmt.Printf("%v %T\n", c, c)
	n := Upper(Name("bob"))
	fmt.Printf("%v %T\n", n, n)
	fmt.Println(Upper("plain"), Abs(int8(-5)), Abs(Celsius(-3)))
}
