package main

import "fmt"

func main() {
	goto L
	x := 1
	fmt.Println(x)
L:
	fmt.Println("L")
}
