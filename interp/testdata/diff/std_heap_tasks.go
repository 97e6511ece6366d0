package main

import (
	"container/heap"
	"fmt"
)

type Task struct {
	Name  string
	Pri   int
	index int
}

type PQ []*Task

func (q PQ) Len() int           { return len(q) }
func (q PQ) Less(i, j int) bool { return q[i].Pri > q[j].Pri }
func (q PQ) Swap(i, j int)      { q[i], q[j] = q[j], q[i]; q[i].index = i; q[j].index = j }
func (q *PQ) Push(x any)        { t := x.(*Task); t.index = len(*q); *q = append(*q, t) }
func (q *PQ) Pop() any {
	old := *q
	n := len(old)
	t := old[n-1]
	*q = old[:n-1]
	return t
}

func main() {
	q := &PQ{}
	heap.Init(q)
	for i, n := range []string{"write", "test", "ship", "plan"} {
		heap.Push(q, &Task{Name: n, Pri: (i * 7) % 5})
	}
	t := (*q)[len(*q)-1]
	t.Pri = 10
	heap.Fix(q, t.index)
	for q.Len() > 0 {
		t := heap.Pop(q).(*Task)
		fmt.Println(t.Name, t.Pri)
	}
}
