package main

import "fmt"

func main() {
	var i interface{ M() } = 3
	fmt.Println(i)
}
