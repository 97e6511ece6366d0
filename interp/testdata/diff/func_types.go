package main

import "fmt"

type op func(int, int) int

type handler interface{ handle(string) string }
type handlerFunc func(string) string

func (f handlerFunc) handle(s string) string { return f(s) }

func apply(o op, a, b int) int { return o(a, b) }

func main() {
	ops := map[string]op{
		"add": func(a, b int) int { return a + b },
		"mul": func(a, b int) int { return a * b },
	}
	fmt.Println(apply(ops["add"], 2, 3), apply(ops["mul"], 2, 3))
	var h handler = handlerFunc(func(s string) string { return "<" + s + ">" })
	fmt.Println(h.handle("x"))
}
