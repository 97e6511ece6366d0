package main

import "fmt"

func main() {
	var a []int
	b := []int{}
	fmt.Println(a == nil, b == nil, len(a), len(b))
	a = append(a, 1)
	fmt.Println(a)
	for range a {
		fmt.Println("iter")
	}
	fmt.Printf("%v %d\n", a[:0], len(a[:0]))
}
