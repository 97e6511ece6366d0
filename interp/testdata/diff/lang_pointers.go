package main

import "fmt"

type Node struct {
	Val  int
	Next *Node
}

func push(head **Node, v int) { *head = &Node{v, *head} }

func reverse(h *Node) *Node {
	var prev *Node
	for h != nil {
		h, h.Next, prev = h.Next, prev, h
	}
	return prev
}

func show(h *Node) {
	for ; h != nil; h = h.Next {
		fmt.Print(h.Val, " ")
	}
	fmt.Println()
}

func swap(a, b *int) { *a, *b = *b, *a }

func main() {
	var head *Node
	for i := range 5 {
		push(&head, i)
	}
	show(head)
	head = reverse(head)
	show(head)
	x, y := 1, 2
	swap(&x, &y)
	fmt.Println(x, y)
	p := &x
	pp := &p
	**pp = 10
	fmt.Println(x, *p == 10, p == *pp)
	arr := []int{1, 2, 3}
	q := &arr[1]
	*q = 20
	fmt.Println(arr)
	type S struct{ n int }
	s := &S{}
	s.n = 5
	(*s).n++
	fmt.Println(s.n)
}
