package main

import "fmt"

func a() { fmt.Println("a") }

func main() {
	fmt.Println("main")
}
