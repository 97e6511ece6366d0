package main

import "fmt"

func main() {
	a, b := []int{1}, []int{1}
	fmt.Println(a == b)
}
