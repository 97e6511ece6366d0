package main

import (
	"fmt"
	"strconv"
)

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func Filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func Fold[T, A any](xs []T, init A, f func(A, T) A) A {
	acc := init
	for _, x := range xs {
		acc = f(acc, x)
	}
	return acc
}

func Zero[T any]() T {
	var z T
	return z
}

func main() {
	nums := []int{1, 2, 3, 4, 5}
	strs := Map(nums, strconv.Itoa)
	fmt.Printf("%q\n", strs)
	evens := Filter(nums, func(n int) bool { return n%2 == 0 })
	fmt.Println(evens)
	total := Fold(nums, 0.5, func(a float64, n int) float64 { return a + float64(n) })
	fmt.Println(total)
	joined := Fold(strs, "", func(a, s string) string { return a + s })
	fmt.Println(joined)
	var f float64 = Zero[float64]()
	fmt.Println(f, Zero[string]() == "")
	lens := Map([]string{"a", "bbb"}, func(s string) int { return len(s) })
	fmt.Println(lens)
}
