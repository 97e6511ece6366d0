package main

import "fmt"

func main() {
	var x int
	var x string
	fmt.Println(x)
}
