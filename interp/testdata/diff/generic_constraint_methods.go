package main

import (
	"fmt"
	"strconv"
)

type Shower interface {
	Show() string
}

type ID int

func (i ID) Show() string { return "#" + strconv.Itoa(int(i)) }

type Tag string

func (t Tag) Show() string { return "<" + string(t) + ">" }

func ShowAll[T Shower](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.Show()
	}
	return out
}

type Number interface{ ~int | ~float64 }

func Scale[T Number](xs []T, k T) []T {
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = x * k
	}
	return out
}

func main() {
	fmt.Println(ShowAll([]ID{1, 2}), ShowAll([]Tag{"a"}))
	fmt.Println(Scale([]int{1, 2, 3}, 2), Scale([]float64{0.5}, 3))
}
