package main

import "fmt"

func main() {
L:
	fmt.Println("x")
}
