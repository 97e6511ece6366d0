package main

import "fmt"

func main() {
	x, y := 1
	fmt.Println(x, y)
}
