package main

import "fmt"

var a = b + 1
var b = f()

func f() int {
	fmt.Println("f called")
	return 10
}

func init() {
	fmt.Println("init", a, b)
}

func main() {
	fmt.Println("main", a, b)
}
