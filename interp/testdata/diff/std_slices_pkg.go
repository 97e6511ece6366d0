package main

import (
	"fmt"
	"slices"
	"strings"
)

type Person struct {
	Name string
	Age  int
}

func main() {
	xs := []int{5, 2, 8, 1, 9, 3}
	slices.Sort(xs)
	fmt.Println(xs, slices.IsSorted(xs))
	i, found := slices.BinarySearch(xs, 8)
	fmt.Println(i, found)
	fmt.Println(slices.Contains(xs, 3), slices.Index(xs, 9), slices.Index(xs, 7))
	fmt.Println(slices.Min(xs), slices.Max(xs))
	ys := slices.Clone(xs)
	slices.Reverse(ys)
	fmt.Println(ys, xs[0])
	people := []Person{{"bob", 30}, {"al", 25}, {"cy", 30}}
	slices.SortStableFunc(people, func(a, b Person) int { return b.Age - a.Age })
	fmt.Println(people)
	idx := slices.IndexFunc(people, func(p Person) bool { return strings.HasPrefix(p.Name, "a") })
	fmt.Println(idx)
	fmt.Println(slices.Equal([]string{"a"}, []string{"a"}), slices.Compact([]int{1, 1, 2, 2, 2, 3, 1}))
	zs := slices.Insert([]int{1, 4}, 1, 2, 3)
	fmt.Println(zs, slices.Delete(zs, 0, 2))
	fmt.Println(slices.Repeat([]string{"ab"}, 3), slices.Concat([]int{1}, []int{2, 3}))
}
