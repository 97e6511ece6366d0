package main

import "fmt"

type T struct{ a, b int }

func main() {
	fmt.Println(T{z: 1})
}
