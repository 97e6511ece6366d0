package main

import (
	"fmt"
	"sort"
)

type rec struct {
	name  string
	score int
}

func main() {
	xs := []int{5, 2, 8, 1}
	sort.Ints(xs)
	fmt.Println(xs, sort.SearchInts(xs, 5), sort.IsSorted(sort.IntSlice(xs)))
	rs := []rec{{"b", 2}, {"a", 2}, {"c", 1}}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].score < rs[j].score })
	fmt.Println(rs)
	sort.Sort(sort.Reverse(sort.IntSlice(xs)))
	fmt.Println(xs)
	fs := []float64{2.5, -1, 3}
	sort.Float64s(fs)
	fmt.Println(fs)
}
