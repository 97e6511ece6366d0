package main

import (
	"errors"
	"fmt"
)

func divide(a, b int) (q int, err error) {
	defer func() {
		if err != nil {
			q = -1
		}
	}()
	if b == 0 {
		err = errors.New("divide by zero")
		return
	}
	q = a / b
	return
}

func counter() (next func() int, reset func()) {
	n := 0
	next = func() int { n++; return n }
	reset = func() { n = 0 }
	return
}

func triple(x int) (r int) {
	defer func() { r *= 3 }()
	return x + 1
}

func main() {
	fmt.Println(divide(7, 2))
	fmt.Println(divide(1, 0))
	next, reset := counter()
	next()
	next()
	fmt.Println(next())
	reset()
	fmt.Println(next())
	fmt.Println(triple(2))
}
