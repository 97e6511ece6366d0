package main

import (
	"cmp"
	"fmt"
)

func MaxOf[T cmp.Ordered](first T, rest ...T) T {
	m := first
	for _, v := range rest {
		if v > m {
			m = v
		}
	}
	return m
}

type Pair[A, B any] struct {
	First  A
	Second B
}

func Swap[A, B any](p Pair[A, B]) Pair[B, A] { return Pair[B, A]{p.Second, p.First} }

func Ptr[T any](v T) *T { return &v }

func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func main() {
	fmt.Println(MaxOf(3, 9, 2), MaxOf("kiwi", "apple"), MaxOf(2.5))
	p := Pair[string, int]{"a", 1}
	q := Swap(p)
	fmt.Printf("%v %v\n", q.First, q.Second)
	ip := Ptr(42)
	*ip++
	fmt.Println(*ip, *Ptr("s"))
	fmt.Println(Must(fmt.Sprint("ok"), nil))
}
