package main

import "fmt"

type T struct{}

func (t *T) M() {}

type I interface{ M() }

func main() {
	var i I = T{}
	fmt.Println(i)
}
