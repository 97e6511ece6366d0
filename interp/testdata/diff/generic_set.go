package main

import (
	"fmt"
	"sort"
)

type Set[T comparable] map[T]struct{}

func NewSet[T comparable](xs ...T) Set[T] {
	s := Set[T]{}
	for _, x := range xs {
		s[x] = struct{}{}
	}
	return s
}

func (s Set[T]) Has(x T) bool { _, ok := s[x]; return ok }

func (s Set[T]) Union(o Set[T]) Set[T] {
	r := Set[T]{}
	for k := range s {
		r[k] = struct{}{}
	}
	for k := range o {
		r[k] = struct{}{}
	}
	return r
}

func (s Set[T]) Intersect(o Set[T]) Set[T] {
	r := Set[T]{}
	for k := range s {
		if o.Has(k) {
			r[k] = struct{}{}
		}
	}
	return r
}

func sortedInts(s Set[int]) []int {
	var out []int
	for k := range s {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func main() {
	a := NewSet(1, 2, 3, 4)
	b := NewSet(3, 4, 5)
	fmt.Println(sortedInts(a.Union(b)), sortedInts(a.Intersect(b)))
	fmt.Println(a.Has(2), b.Has(2), len(NewSet("x", "x", "y")))
}
