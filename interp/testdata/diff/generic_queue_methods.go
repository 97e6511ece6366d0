package main

import "fmt"

type Queue[T any] struct {
	items []T
}

func (q *Queue[T]) Push(v T) { q.items = append(q.items, v) }

func (q *Queue[T]) Pop() (T, bool) {
	var zero T
	if len(q.items) == 0 {
		return zero, false
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, true
}

func (q *Queue[T]) Len() int { return len(q.items) }

type point struct{ x, y int }

func main() {
	var q Queue[string]
	q.Push("a")
	q.Push("b")
	v, ok := q.Pop()
	fmt.Println(v, ok, q.Len())
	var pq Queue[point]
	pq.Push(point{1, 2})
	p, _ := pq.Pop()
	_, ok = pq.Pop()
	fmt.Println(p.x, p.y, ok)
	qi := &Queue[int]{}
	for i := range 5 {
		qi.Push(i * i)
	}
	sum := 0
	for qi.Len() > 0 {
		n, _ := qi.Pop()
		sum += n
	}
	fmt.Println(sum)
}
