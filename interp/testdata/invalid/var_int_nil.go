package main

import "fmt"

func main() {
	var x int = nil
	fmt.Println(x)
}
