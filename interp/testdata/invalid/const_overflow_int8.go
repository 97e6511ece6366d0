package main

import "fmt"

func main() {
	var x int8 = 1000
	fmt.Println(x)
}
