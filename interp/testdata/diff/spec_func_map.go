package main

import (
	"fmt"
	"sort"
)

type op func(a, b float64) float64

var ops = map[string]op{
	"+": func(a, b float64) float64 { return a + b },
	"-": func(a, b float64) float64 { return a - b },
	"*": func(a, b float64) float64 { return a * b },
}

func eval(tokens []string) float64 {
	var stack []float64
	for _, t := range tokens {
		if f, ok := ops[t]; ok {
			a, b := stack[len(stack)-2], stack[len(stack)-1]
			stack = append(stack[:len(stack)-2], f(a, b))
			continue
		}
		var v float64
		fmt.Sscan(t, &v)
		stack = append(stack, v)
	}
	return stack[0]
}

func main() {
	ops["/"] = func(a, b float64) float64 { return a / b }
	fmt.Println(eval([]string{"3", "4", "+", "2", "*"}))
	fmt.Println(eval([]string{"10", "4", "/", "1", "-"}))
	names := make([]string, 0, len(ops))
	for k := range ops {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Print(n, "=", ops[n](6, 3), " ")
	}
	fmt.Println()
	handlers := map[int]func() string{}
	for i := range 3 {
		handlers[i] = func() string { return fmt.Sprint("h", i) }
	}
	fmt.Println(handlers[0](), handlers[2](), handlers[5] == nil)
}
