package main

import (
	"cmp"
	"fmt"
	"slices"
)

type person struct {
	name string
	age  int
}

func main() {
	ps := []person{{"bo", 30}, {"al", 25}, {"cy", 35}}
	slices.SortFunc(ps, func(a, b person) int { return cmp.Compare(a.age, b.age) })
	for _, p := range ps {
		fmt.Println(p.name, p.age)
	}
}
