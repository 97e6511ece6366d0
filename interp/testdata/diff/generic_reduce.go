package main

import "fmt"

func Reduce[T, A any](xs []T, init A, f func(A, T) A) A {
	acc := init
	for _, x := range xs {
		acc = f(acc, x)
	}
	return acc
}

func main() {
	fmt.Println(Reduce([]int{1, 2, 3}, "", func(a string, x int) string { return a + fmt.Sprint(x) }))
}
