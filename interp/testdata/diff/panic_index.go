package main

import "fmt"

func main() {
	s := []int{1, 2, 3}
	i := 5
	fmt.Println("len", len(s))
	fmt.Println(s[i])
}
