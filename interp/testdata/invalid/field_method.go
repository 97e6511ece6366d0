package main

import "fmt"

type T struct{ a int }

func (t T) a() {}

func main() {
	fmt.Println(T{})
}
