package main

import "fmt"

func main() {
	a, b := 1, 2, 3
	fmt.Println(a, b)
}
