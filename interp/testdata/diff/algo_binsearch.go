package main

import "fmt"

func search(a []int, x int) int {
	lo, hi := 0, len(a)
	for lo < hi {
		mid := (lo + hi) / 2
		switch {
		case a[mid] == x:
			return mid
		case a[mid] < x:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}

func main() {
	a := []int{1, 3, 5, 7, 9, 11}
	for _, x := range []int{1, 7, 11, 4} {
		fmt.Println(x, search(a, x))
	}
}
