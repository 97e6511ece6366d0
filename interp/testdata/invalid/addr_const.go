package main

import "fmt"

func main() {
	p := &4
	fmt.Println(p)
}
