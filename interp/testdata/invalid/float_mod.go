package main

import "fmt"

func main() {
	x := 1.5
	fmt.Println(x % 2)
}
