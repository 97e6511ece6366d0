package main

import "fmt"

func main() {
	xs := []int{1, 2, 3}
	for i, x := range xs {
		if i == 0 {
			xs = append(xs, 99)
			xs[1] = 20
		}
		fmt.Print(x, " ")
	}
	fmt.Println(len(xs))
	arr := [3]int{1, 2, 3}
	for i, x := range arr {
		arr[2] = 30
		fmt.Print(i, x, " ")
	}
	fmt.Println(arr)
	m := map[int]bool{1: true}
	for k := range m {
		delete(m, k)
	}
	fmt.Println(len(m))
	s := "abc"
	for i := range s {
		s = "zzzz"
		fmt.Print(i)
	}
	fmt.Println(s)
}
