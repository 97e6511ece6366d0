package main

import "fmt"

func main() {
	x := 1
	x = "a"
	fmt.Println(x)
}
