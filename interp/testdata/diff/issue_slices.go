package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
)

func main() {
	xs := []int{3, 1, 2}
	slices.Sort(xs)
	fmt.Println(xs, slices.Max(xs), slices.Min(xs), slices.Contains(xs, 2), slices.Index(xs, 3))
	fmt.Println(slices.Equal(xs, []int{1, 2, 3}), cmp.Compare(1, 2))
	m := map[string]int{"b": 2, "a": 1}
	keys := slices.Sorted(maps.Keys(m))
	fmt.Println(keys, maps.Equal(m, map[string]int{"a": 1, "b": 2}))
}
