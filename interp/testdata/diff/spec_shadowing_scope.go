package main

import (
	"errors"
	"fmt"
)

var x = "global"

func f() (int, error) { return 1, errors.New("f failed") }

func main() {
	fmt.Println(x)
	x := "local"
	fmt.Println(x)
	{
		x := "block"
		fmt.Println(x)
	}
	fmt.Println(x)
	if x := 5; x > 3 {
		fmt.Println("if", x)
	} else if y := x * 2; y > 0 {
		fmt.Println(y)
	}
	var err error
	if n, err := f(); err != nil {
		fmt.Println("inner", n, err)
	}
	fmt.Println("outer", err)
	for i := 0; i < 2; i++ {
		i := i * 10
		fmt.Println(i)
	}
}
