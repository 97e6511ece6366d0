package main

import "fmt"

type Inner struct{ vals []int }
type Outer struct {
	in  Inner
	arr [2]int
	m   map[string]int
}

func main() {
	a := Outer{Inner{[]int{1}}, [2]int{1, 2}, map[string]int{"k": 1}}
	b := a
	b.arr[0] = 100
	b.in.vals[0] = 100
	b.m["k"] = 100
	fmt.Println(a.arr[0], a.in.vals[0], a.m["k"])
	ps := []Outer{a}
	for _, p := range ps {
		p.arr[1] = 50
	}
	fmt.Println(ps[0].arr[1])
	for i := range ps {
		ps[i].arr[1] = 50
	}
	fmt.Println(ps[0].arr[1])
}
