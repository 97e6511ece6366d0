package main

import "fmt"

func quicksort(a []int) []int {
	if len(a) < 2 {
		return a
	}
	pivot := a[0]
	var less, more []int
	for _, x := range a[1:] {
		if x < pivot {
			less = append(less, x)
		} else {
			more = append(more, x)
		}
	}
	return append(append(quicksort(less), pivot), quicksort(more)...)
}

func main() {
	fmt.Println(quicksort([]int{5, 3, 9, 1, 5, 0, -2}))
}
