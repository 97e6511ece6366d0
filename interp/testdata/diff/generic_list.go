package main

import "fmt"

type List[T any] struct {
	head *node[T]
	size int
}

type node[T any] struct {
	val  T
	next *node[T]
}

func (l *List[T]) Push(v T) {
	l.head = &node[T]{v, l.head}
	l.size++
}

func (l *List[T]) Each(f func(T)) {
	for n := l.head; n != nil; n = n.next {
		f(n.val)
	}
}

func main() {
	var l List[int]
	for i := 0; i < 4; i++ {
		l.Push(i)
	}
	l.Each(func(v int) { fmt.Print(v, " ") })
	fmt.Println(l.size)
}
