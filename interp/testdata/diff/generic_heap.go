package main

import "fmt"

type Heap[T any] struct {
	data []T
	less func(a, b T) bool
}

func NewHeap[T any](less func(a, b T) bool) *Heap[T] { return &Heap[T]{less: less} }

func (h *Heap[T]) Push(v T) {
	h.data = append(h.data, v)
	i := len(h.data) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.data[i], h.data[p]) {
			break
		}
		h.data[i], h.data[p] = h.data[p], h.data[i]
		i = p
	}
}

func (h *Heap[T]) Pop() (T, bool) {
	var zero T
	if len(h.data) == 0 {
		return zero, false
	}
	top := h.data[0]
	last := len(h.data) - 1
	h.data[0] = h.data[last]
	h.data = h.data[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h.data) && h.less(h.data[l], h.data[m]) {
			m = l
		}
		if r < len(h.data) && h.less(h.data[r], h.data[m]) {
			m = r
		}
		if m == i {
			break
		}
		h.data[i], h.data[m] = h.data[m], h.data[i]
		i = m
	}
	return top, true
}

func (h *Heap[T]) Len() int { return len(h.data) }

type task struct {
	pri  int
	name string
}

func main() {
	h := NewHeap(func(a, b int) bool { return a < b })
	for _, v := range []int{5, 2, 9, 1, 7} {
		h.Push(v)
	}
	for h.Len() > 0 {
		v, _ := h.Pop()
		fmt.Print(v, " ")
	}
	fmt.Println()
	th := NewHeap(func(a, b task) bool { return a.pri > b.pri })
	th.Push(task{1, "low"})
	th.Push(task{3, "high"})
	th.Push(task{2, "mid"})
	for t, ok := th.Pop(); ok; t, ok = th.Pop() {
		fmt.Println(t.pri, t.name)
	}
}
