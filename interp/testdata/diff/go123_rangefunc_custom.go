package main

import (
	"fmt"
	"iter"
)

type List struct {
	items []string
}

func (l *List) All() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, s := range l.items {
			if !yield(i, s) {
				return
			}
		}
	}
}

func (l *List) Backward() iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := len(l.items) - 1; i >= 0; i-- {
			if !yield(l.items[i]) {
				return
			}
		}
	}
}

func Fib() iter.Seq[int] {
	return func(yield func(int) bool) {
		a, b := 0, 1
		for {
			if !yield(a) {
				return
			}
			a, b = b, a+b
		}
	}
}

func main() {
	l := &List{items: []string{"a", "b", "c"}}
	for i, s := range l.All() {
		fmt.Println(i, s)
	}
	for s := range l.Backward() {
		if s == "a" {
			break
		}
		fmt.Print(s, " ")
	}
	fmt.Println()
	for f := range Fib() {
		if f > 50 {
			break
		}
		fmt.Print(f, " ")
	}
	fmt.Println()
}
