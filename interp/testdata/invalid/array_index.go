package main

import "fmt"

func main() {
	var a [3]int
	a[5] = 1
	fmt.Println(a)
}
