package main

import (
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

type rs struct{ xs []int }

func (r rs) Len() int           { return len(r.xs) }
func (r rs) Less(i, j int) bool { return r.xs[i] < r.xs[j] }
func (r rs) Swap(i, j int)      { r.xs[i], r.xs[j] = r.xs[j], r.xs[i] }

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	n := len(old)
	x := old[n-1]
	*h = old[:n-1]
	return x
}

type label struct{ s string }

func (l label) String() string { return "<" + l.s + ">" }

type myErr struct{ code int }

func (e myErr) Error() string { return fmt.Sprintf("code %d", e.code) }

type upper struct{ r io.Reader }

func (u upper) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	copy(p, bytes.ToUpper(p[:n]))
	return n, err
}

var data = []int{3, 1, 2}
var si sort.Interface = rs{data}
var st fmt.Stringer = label{"top"}
var er error = myErr{7}
var rd io.Reader = upper{strings.NewReader("hello")}
var hp heap.Interface = &intHeap{5, 2, 8}

func main() {
	fmt.Println(si.Len())
	sort.Sort(si)
	fmt.Println(data)
	fmt.Println(st.String(), st)
	fmt.Println(er.Error(), er)
	var me myErr
	fmt.Println(errors.As(er, &me), me.code)
	b, _ := io.ReadAll(rd)
	fmt.Println(string(b))
	heap.Init(hp)
	heap.Push(hp, 1)
	for hp.Len() > 0 {
		fmt.Print(heap.Pop(hp), " ")
	}
	fmt.Println()

	local := []int{9, 8}
	var si2 sort.Interface = rs{local}
	var st2 fmt.Stringer = label{"local"}
	sort.Sort(si2)
	fmt.Println(si2.Len(), local, st2)
}
