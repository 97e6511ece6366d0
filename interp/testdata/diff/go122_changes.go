package main

import (
	"fmt"
	"slices"
)

func main() {
	for i := range 3 {
		fmt.Print(i, " ")
	}
	fmt.Println()
	var ptrs []*int
	for i := 0; i < 3; i++ {
		ptrs = append(ptrs, &i)
	}
	for _, p := range ptrs {
		fmt.Print(*p, " ")
	}
	fmt.Println()
	seq := func(yield func(int) bool) {
		for i := 10; i < 13; i++ {
			if !yield(i) {
				return
			}
		}
	}
	for v := range seq {
		if v == 12 {
			break
		}
		fmt.Print(v, " ")
	}
	fmt.Println()
	for i, s := range slices.Backward([]string{"a", "b"}) {
		fmt.Print(i, s, " ")
	}
	fmt.Println()
	p := new(42)
	fmt.Println(*p, min(1, 2), max(3, 4))
}
