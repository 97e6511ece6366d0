package main

import "fmt"

func sum(base int, xs ...int) int {
	for _, x := range xs {
		base += x
	}
	return base
}

func join(sep string, parts ...string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += sep
		}
		out += p
	}
	return out
}

func main() {
	fmt.Println(sum(1), sum(1, 2, 3), sum(0, []int{4, 5}...))
	fmt.Println(join("-", "a", "b", "c"))
	args := []any{1, "x"}
	fmt.Println(args...)
}
