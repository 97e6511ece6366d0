package main

import "fmt"

func main() {
	fmt.Println(min(3, 1, 2), max(3, 1, 2), min(2.5, 1.0), max("a", "b"))
	x, y := 7, 9
	fmt.Println(min(x, y), max(x, y, 8))
	s := []int{1, 2, 3}
	clear(s)
	fmt.Println(s)
}
