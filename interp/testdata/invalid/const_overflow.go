package main

import "fmt"

func main() {
	x := 1 << 100
	fmt.Println(x)
}
