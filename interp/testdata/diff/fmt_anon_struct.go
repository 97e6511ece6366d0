package main

import "fmt"

func main() {
	v := struct {
		Name string
		age  int
	}{"ann", 30}
	fmt.Printf("%v %+v\n", v, v)
	fmt.Printf("%T\n", v)
}
