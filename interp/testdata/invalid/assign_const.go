package main

import "fmt"

const c = 1

func main() {
	c = 2
	fmt.Println(c)
}
