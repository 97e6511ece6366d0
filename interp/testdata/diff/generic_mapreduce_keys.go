package main

import (
	"cmp"
	"fmt"
	"slices"
)

func GroupBy[T any, K comparable](xs []T, key func(T) K) map[K][]T {
	out := map[K][]T{}
	for _, x := range xs {
		k := key(x)
		out[k] = append(out[k], x)
	}
	return out
}

func SortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func main() {
	words := []string{"apple", "avocado", "banana", "blueberry", "cherry"}
	g := GroupBy(words, func(s string) byte { return s[0] })
	for _, k := range SortedKeys(g) {
		fmt.Println(string(k), g[k])
	}
	lens := GroupBy([]int{1, 22, 333, 44, 5}, func(n int) int { return len(fmt.Sprint(n)) })
	for _, k := range SortedKeys(lens) {
		fmt.Println(k, lens[k])
	}
}
