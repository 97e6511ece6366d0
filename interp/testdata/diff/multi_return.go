package main

import (
	"errors"
	"fmt"
)

func divmod(a, b int) (q, r int) {
	q = a / b
	r = a % b
	return
}

func lookup(k string) (int, error) {
	if k == "" {
		return 0, errors.New("empty key")
	}
	return len(k), nil
}

func main() {
	q, r := divmod(17, 5)
	fmt.Println(q, r)
	if n, err := lookup("abc"); err == nil {
		fmt.Println("n", n)
	}
	if _, err := lookup(""); err != nil {
		fmt.Println("err", err)
	}
	fmt.Println(divmod(9, 4))
}
