package main

import "fmt"

func main() {
	b := true
	fmt.Println(b + 1)
}
