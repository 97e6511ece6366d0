package main

import (
	"fmt"
	"strconv"
)

var x = "package"

func show() string { return x }

func main() {
	fmt.Println(x)
	x := "main"
	fmt.Println(x, show())
	{
		x := 3
		x++
		fmt.Println(x)
	}
	if x := len(x); x > 2 {
		fmt.Println("if", x)
	} else {
		x := "else"
		fmt.Println(x)
	}
	fmt.Println(x)
	n, err := strconv.Atoi("12")
	if err == nil {
		n, err := strconv.Atoi("bad")
		fmt.Println(n, err != nil)
	}
	fmt.Println(n, err)
	for x := 0; x < 2; x++ {
		x := x * 10
		fmt.Print(x, " ")
	}
	fmt.Println()
	fmt := "shadowed fmt"
	_ = fmt
	println := len(fmt)
	_ = println
}
