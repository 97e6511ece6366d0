package main

import "fmt"

func main() {
	defer func() {
		fmt.Println("cleanup")
	}()
	fmt.Println("before")
	panic(42)
}
