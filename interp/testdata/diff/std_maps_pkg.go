package main

import (
	"fmt"
	"maps"
	"slices"
)

func main() {
	m := map[string]int{"b": 2, "a": 1, "c": 3}
	keys := slices.Sorted(maps.Keys(m))
	fmt.Println(keys)
	vals := slices.Sorted(maps.Values(m))
	fmt.Println(vals)
	c := maps.Clone(m)
	c["d"] = 4
	fmt.Println(len(m), len(c), maps.Equal(m, c))
	delete(c, "d")
	fmt.Println(maps.Equal(m, c))
	maps.DeleteFunc(c, func(k string, v int) bool { return v%2 == 1 })
	fmt.Println(c)
	dst := map[string]int{"z": 26}
	maps.Copy(dst, m)
	fmt.Println(dst)
	col := maps.Collect(slices.All([]string{"x", "y"}))
	fmt.Println(col)
	for _, k := range slices.Sorted(maps.Keys(dst)) {
		fmt.Print(k, dst[k], " ")
	}
	fmt.Println()
}
