package main

import "fmt"

func shift(x, n int) int { return x << n }

func main() {
	fmt.Println(shift(1, 3))
	fmt.Println(shift(1, -1))
}
