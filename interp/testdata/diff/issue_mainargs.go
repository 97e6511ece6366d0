package main

import "fmt"

func a(x int) { fmt.Println("a", x) }

func main() {
	fmt.Println("main")
}
