package main

import (
	"fmt"
	"sort"
)

func main() {
	s := make([]int, 3, 10)
	t := append(s, 4)
	s = append(s, 5)
	fmt.Println(t[3], len(s), cap(s))
	a := [5]int{1, 2, 3, 4, 5}
	sl := a[1:3]
	sl = append(sl, 99)
	fmt.Println(a, sl, len(sl), cap(sl))
	full := a[1:3:3]
	full = append(full, 7)
	fmt.Println(a, full)
	m := map[string][]int{}
	m["a"] = append(m["a"], 1, 2)
	m["b"] = nil
	v, ok := m["c"]
	fmt.Println(len(m), m["a"], v == nil, ok)
	delete(m, "b")
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println(keys)
	clear(m)
	fmt.Println(len(m), min(3, 1, 2), max(2.5, 1), min("b", "a"))
	copy(s, []int{7, 8})
	fmt.Println(s)
	grid := make([][]int, 2)
	for i := range grid {
		grid[i] = make([]int, 2)
		grid[i][i] = 1
	}
	fmt.Println(grid)
	var nilS []int
	fmt.Println(nilS == nil, len(nilS), append(nilS, 1))
}
