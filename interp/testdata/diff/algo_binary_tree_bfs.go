package main

import (
	"fmt"
	"strings"
)

type Tree struct {
	Left, Right *Tree
	Val         int
}

func insert(t *Tree, v int) *Tree {
	if t == nil {
		return &Tree{Val: v}
	}
	if v < t.Val {
		t.Left = insert(t.Left, v)
	} else {
		t.Right = insert(t.Right, v)
	}
	return t
}

func levels(t *Tree) [][]int {
	var out [][]int
	q := []*Tree{t}
	for len(q) > 0 {
		var lvl []int
		var next []*Tree
		for _, n := range q {
			if n == nil {
				continue
			}
			lvl = append(lvl, n.Val)
			next = append(next, n.Left, n.Right)
		}
		if len(lvl) > 0 {
			out = append(out, lvl)
		}
		q = next
	}
	return out
}

func (t *Tree) String() string {
	if t == nil {
		return "()"
	}
	return fmt.Sprintf("(%v %d %v)", t.Left, t.Val, t.Right)
}

func height(t *Tree) int {
	if t == nil {
		return 0
	}
	return 1 + max(height(t.Left), height(t.Right))
}

func main() {
	var root *Tree
	for _, v := range []int{50, 30, 70, 20, 40, 60, 80, 35} {
		root = insert(root, v)
	}
	fmt.Println(levels(root))
	fmt.Println(height(root))
	fmt.Println(strings.Count(root.String(), "()"))
	fmt.Println(root.Left)
}
