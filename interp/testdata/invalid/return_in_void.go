package main

import "fmt"

func f() {
	return 1
}

func main() {
	f()
	fmt.Println("x")
}
