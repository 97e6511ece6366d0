package main

import (
	"fmt"
	"strings"
)

func sum(base int, xs ...int) int {
	for _, x := range xs {
		base += x
	}
	return base
}

func mutate(xs ...int) {
	if len(xs) > 0 {
		xs[0] = 999
	}
}

func join(sep string, parts ...string) string { return strings.Join(parts, sep) }

func describe(args ...any) string {
	return fmt.Sprintf("%d args: %v", len(args), args)
}

func main() {
	fmt.Println(sum(1), sum(1, 2, 3))
	nums := []int{4, 5, 6}
	fmt.Println(sum(0, nums...))
	mutate(nums...)
	fmt.Println(nums)
	mutate(7, 8)
	fmt.Println(join("-", "a", "b", "c"), join(","))
	fmt.Println(describe(), describe(1, "x"), describe(nil))
	var none []any
	fmt.Println(describe(none...))
	ifs := []any{1, 2}
	fmt.Println(describe(ifs...), describe(ifs))
}
