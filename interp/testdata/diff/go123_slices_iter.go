package main

import (
	"fmt"
	"maps"
	"slices"
)

func main() {
	for i, v := range slices.All([]string{"x", "y"}) {
		fmt.Println(i, v)
	}
	m := map[int]string{2: "b", 1: "a"}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Println(k, m[k])
	}
	fmt.Println(slices.Collect(maps.Values(map[string]int{"a": 1})))
}
