// A function returning an expression of two calls and a second value,
// assigned to two variables (found while writing notebook 05).
package main

import "fmt"

func one(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func two(xs []int) (int, int) {
	ys := append(xs, 10)
	return one(xs) + one(ys), len(ys)
}

func main() {
	a, b := two([]int{10, 20})
	fmt.Println(a, b)
	c, d := two(nil)
	fmt.Println(c, d)
}
