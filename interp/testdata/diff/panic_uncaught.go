package main

import "fmt"

func main() {
	fmt.Println("start")
	panic("boom")
}
