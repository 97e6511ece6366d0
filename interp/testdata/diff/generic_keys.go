package main

import (
	"fmt"
	"sort"
)

func Keys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func main() {
	ks := Keys(map[string]int{"x": 1, "y": 2, "z": 3})
	sort.Strings(ks)
	fmt.Println(ks)
}
