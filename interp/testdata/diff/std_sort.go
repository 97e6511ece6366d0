package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

type person struct {
	name string
	age  int
}

func main() {
	ps := []person{{"bo", 30}, {"al", 25}, {"cy", 30}, {"di", 20}}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].age < ps[j].age })
	fmt.Println(ps)
	slices.SortStableFunc(ps, func(a, b person) int { return strings.Compare(a.name, b.name) })
	fmt.Println(ps)
	xs := []float64{2.5, -1, 3}
	sort.Float64s(xs)
	fmt.Println(xs, sort.SearchInts([]int{1, 3, 5, 7}, 5))
	i := sort.Search(100, func(i int) bool { return i*i >= 50 })
	fmt.Println(i, sort.IsSorted(sort.IntSlice([]int{1, 2, 3})))
	ws := strings.Fields("pear apple fig")
	sort.Sort(sort.Reverse(sort.StringSlice(ws)))
	fmt.Println(ws)
}
