package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

type name string

func main() {
	xs := []int{1, 1, 2, 3, 3, 3, 4}
	c := slices.Clone(xs)
	c[0] = 9
	fmt.Println(xs, c, slices.Clone([]int(nil)) == nil)
	fmt.Println(slices.Compact(slices.Clone(xs)))
	fmt.Println(slices.Insert([]int{1, 2, 5}, 2, 3, 4))
	fmt.Println(slices.Delete([]int{0, 1, 2, 3, 4}, 1, 3))
	fmt.Println(slices.DeleteFunc([]int{1, 2, 3, 4, 5, 6}, func(x int) bool { return x%2 == 0 }))
	fmt.Println(slices.Concat([]int{1}, []int{2, 3}, nil, []int{4}))
	fmt.Println(slices.Repeat([]string{"a", "b"}, 2))
	for ch := range slices.Chunk([]int{1, 2, 3, 4, 5}, 2) {
		fmt.Print(ch, " ")
	}
	fmt.Println()
	ws := strings.Fields("b a c a")
	fmt.Println(slices.Compact(slices.Sorted(slices.Values(ws))))
	m := map[name]int{"x": 1, "y": 2}
	ks := slices.Collect(maps.Keys(m))
	slices.Sort(ks)
	fmt.Println(ks)
	m2 := maps.Clone(m)
	m2["z"] = 3
	fmt.Println(len(m), len(m2))
	fmt.Println(maps.Collect(slices.All([]string{"p", "q"})))
	for i, v := range slices.Backward([]string{"a", "b", "c"}) {
		fmt.Print(i, v, " ")
	}
	fmt.Println()
	byLen := slices.SortedFunc(slices.Values([]string{"ccc", "a", "bb"}), func(a, b string) int { return len(a) - len(b) })
	fmt.Println(byLen, slices.AppendSeq([]int{0}, slices.Values([]int{1, 2})))
	dst := map[string]int{"a": 1}
	maps.Insert(dst, maps.All(map[string]int{"b": 2}))
	fmt.Println(dst)
}
