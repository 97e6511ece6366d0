package main

import "fmt"

func div(a, b int) int { return a / b }

func main() {
	fmt.Println(div(4, 2))
	fmt.Println(div(1, 0))
}
