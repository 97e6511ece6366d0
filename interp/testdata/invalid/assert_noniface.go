package main

import "fmt"

func main() {
	x := 1
	fmt.Println(x.(int))
}
