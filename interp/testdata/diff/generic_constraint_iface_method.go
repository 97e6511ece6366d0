package main

import (
	"fmt"
	"strings"
)

type Named interface {
	comparable
	Name() string
}

type user struct{ id int }

func (u user) Name() string { return fmt.Sprintf("user%d", u.id) }

func Index[T Named](xs []T, x T) (int, string) {
	for i, v := range xs {
		if v == x {
			return i, v.Name()
		}
	}
	return -1, ""
}

type Joiner[T fmt.Stringer] struct{ sep string }

func (j Joiner[T]) Join(xs []T) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.String()
	}
	return strings.Join(parts, j.sep)
}

type tag string

func (t tag) String() string { return "#" + string(t) }

func main() {
	us := []user{{1}, {2}, {3}}
	fmt.Println(Index(us, user{2}))
	fmt.Println(Index(us, user{9}))
	fmt.Println(Joiner[tag]{", "}.Join([]tag{"go", "yaegi"}))
}
