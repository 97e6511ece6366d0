package main

import (
	"fmt"
	"strings"
)

func describe(vals ...any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = fmt.Sprintf("%v(%T)", v, v)
	}
	return strings.Join(parts, ",")
}

func main() {
	fmt.Println(describe(1, "a", 2.5, nil, true, []int{1}))
	fmt.Println(describe())
}
