package main

import "fmt"

func f(x int) int { return x }

func main() {
	fmt.Println(f(1, 2))
}
