package main

import (
	"fmt"
	"iter"
	"maps"
	"slices"
)

func Enumerate[T any](xs []T) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i, x := range xs {
			if !yield(i, x) {
				return
			}
		}
	}
}

func main() {
	for i, s := range Enumerate([]string{"a", "b", "c"}) {
		if i == 2 {
			break
		}
		fmt.Println(i, s)
	}
	m := map[string]int{"x": 1, "y": 2, "z": 3}
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	fmt.Println(keys)
	for i, v := range slices.Backward([]int{10, 20, 30}) {
		fmt.Print(i, ":", v, " ")
	}
	fmt.Println()
	sorted := slices.Sorted(maps.Values(m))
	fmt.Println(sorted)
	for c := range slices.Chunk([]int{1, 2, 3, 4, 5}, 2) {
		fmt.Print(c, " ")
	}
	fmt.Println()
}
