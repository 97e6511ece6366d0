package main

import (
	"fmt"
	"iter"
)

func enumerate[T any](xs []T) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i, x := range xs {
			if !yield(i, x) {
				return
			}
		}
	}
}

func main() {
	for i, s := range enumerate([]string{"a", "b"}) {
		fmt.Println(i, s)
	}
}
