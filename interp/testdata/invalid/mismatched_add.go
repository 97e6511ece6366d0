package main

import "fmt"

func main() {
	x := 1
	s := "a"
	fmt.Println(x + s)
}
