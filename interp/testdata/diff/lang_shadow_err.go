package main

import (
	"errors"
	"fmt"
)

func step(n int) (int, error) {
	if n > 2 {
		return 0, errors.New("too big")
	}
	return n * 10, nil
}

func main() {
	total := 0
	for i := 0; i < 5; i++ {
		v, err := step(i)
		if err != nil {
			fmt.Println("stop at", i, err)
			break
		}
		total += v
	}
	fmt.Println(total)
	x := 1
	if x := 2; x > 1 {
		fmt.Println("inner", x)
	}
	fmt.Println("outer", x)
}
