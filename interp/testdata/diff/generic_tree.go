package main

import (
	"cmp"
	"fmt"
)

type Tree[T cmp.Ordered] struct {
	root *node[T]
	size int
}

type node[T cmp.Ordered] struct {
	val         T
	left, right *node[T]
}

func (t *Tree[T]) Insert(v T) bool {
	p := &t.root
	for *p != nil {
		switch c := cmp.Compare(v, (*p).val); {
		case c < 0:
			p = &(*p).left
		case c > 0:
			p = &(*p).right
		default:
			return false
		}
	}
	*p = &node[T]{val: v}
	t.size++
	return true
}

func (t *Tree[T]) Walk(f func(T)) { walk(t.root, f) }

func walk[T cmp.Ordered](n *node[T], f func(T)) {
	if n == nil {
		return
	}
	walk(n.left, f)
	f(n.val)
	walk(n.right, f)
}

func main() {
	var t Tree[int]
	for _, v := range []int{5, 3, 8, 1, 4, 5, 9} {
		t.Insert(v)
	}
	t.Walk(func(v int) { fmt.Print(v, " ") })
	fmt.Println(t.size)
	var s Tree[string]
	for _, w := range []string{"pear", "apple", "fig"} {
		s.Insert(w)
	}
	s.Walk(func(w string) { fmt.Print(w, " ") })
	fmt.Println()
}
