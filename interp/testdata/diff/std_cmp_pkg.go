package main

import (
	"cmp"
	"fmt"
	"slices"
)

type Emp struct {
	Dept string
	Name string
	Pay  int
}

func main() {
	fmt.Println(cmp.Compare(1, 2), cmp.Compare("b", "a"), cmp.Compare(2.0, 2.0))
	fmt.Println(cmp.Less(1, 2), cmp.Or(0, 0, 3, 4), cmp.Or("", "def"))
	es := []Emp{{"eng", "zed", 10}, {"ops", "amy", 7}, {"eng", "bo", 12}, {"ops", "cal", 7}}
	slices.SortFunc(es, func(a, b Emp) int {
		return cmp.Or(
			cmp.Compare(a.Dept, b.Dept),
			-cmp.Compare(a.Pay, b.Pay),
			cmp.Compare(a.Name, b.Name),
		)
	})
	for _, e := range es {
		fmt.Println(e.Dept, e.Name, e.Pay)
	}
	best := slices.MaxFunc(es, func(a, b Emp) int { return cmp.Compare(a.Pay, b.Pay) })
	fmt.Println(best.Name)
}
