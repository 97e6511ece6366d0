package main

import "fmt"

func main() {
	defer func() {
		fmt.Println("outer defer")
	}()
	defer func() {
		panic("panic in defer")
	}()
	fmt.Println("body")
}
