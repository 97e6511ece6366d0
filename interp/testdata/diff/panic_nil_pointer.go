package main

import "fmt"

type node struct{ next *node }

func main() {
	var n *node
	fmt.Println("before")
	fmt.Println(n.next)
}
