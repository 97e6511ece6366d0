package main

import "fmt"

func main() {
	var x any = "str"
	n, ok := x.(int)
	fmt.Println(n, ok)
	fmt.Println(x.(int))
}
