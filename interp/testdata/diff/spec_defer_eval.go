package main

import "fmt"

type tracer struct{ name string }

func (t tracer) done(msg string) { fmt.Println(t.name, msg) }

func trace(s string) string {
	fmt.Println("enter", s)
	return s
}

func un(s string) { fmt.Println("leave", s) }

func work() {
	defer un(trace("work"))
	t := tracer{"first"}
	defer t.done("deferred")
	t.name = "second"
	x := 1
	defer fmt.Println("x at defer", x)
	defer func() { fmt.Println("x at end", x) }()
	x = 2
	for i := range 3 {
		defer fmt.Print(i, " ")
	}
	fmt.Println("body")
}

func main() {
	work()
	fmt.Println()
}
