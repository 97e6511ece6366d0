package main

import (
	"fmt"
	"iter"
	"slices"
)

func Filter[T any](seq iter.Seq[T], keep func(T) bool) iter.Seq[T] {
	return func(yield func(T) bool) {
		for v := range seq {
			if keep(v) && !yield(v) {
				return
			}
		}
	}
}

func Take[T any](seq iter.Seq[T], n int) iter.Seq[T] {
	return func(yield func(T) bool) {
		if n <= 0 {
			return
		}
		i := 0
		for v := range seq {
			if !yield(v) {
				return
			}
			i++
			if i == n {
				return
			}
		}
	}
}

func Naturals() iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 1; ; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func main() {
	odd := Filter(Naturals(), func(n int) bool { return n%2 == 1 })
	fmt.Println(slices.Collect(Take(odd, 5)))
	for v := range Take(slices.Values([]string{"x", "y", "z"}), 2) {
		fmt.Print(v, " ")
	}
	fmt.Println()
}
