package main

import "fmt"

type Node struct {
	Val  int
	Next *Node
}

type Wrapper struct {
	Items []Node
	Meta  map[string]string
}

func main() {
	n := Node{1, nil}
	fmt.Printf("%v %+v\n", n, n)
	w := Wrapper{[]Node{{1, nil}, {2, nil}}, map[string]string{"k": "v"}}
	fmt.Printf("%v\n%+v\n", w, w)
	fmt.Printf("%#v\n", Node{3, nil})
	fmt.Printf("%T %T\n", w, &n)
}
