package main

import "fmt"

func counter() func() int {
	n := 0
	return func() int {
		n++
		return n
	}
}

func compose(f, g func(int) int) func(int) int {
	return func(x int) int { return f(g(x)) }
}

func fib() func() int {
	a, b := 0, 1
	return func() int {
		r := a
		a, b = b, a+b
		return r
	}
}

func main() {
	c1, c2 := counter(), counter()
	fmt.Println(c1(), c1(), c2())
	double := func(x int) int { return 2 * x }
	inc := func(x int) int { return x + 1 }
	fmt.Println(compose(double, inc)(5), compose(inc, double)(5))
	f := fib()
	for i := 0; i < 8; i++ {
		fmt.Print(f(), " ")
	}
	fmt.Println()
	var fs []func() int
	for i := range 3 {
		fs = append(fs, func() int { return i * i })
	}
	for _, g := range fs {
		fmt.Print(g(), " ")
	}
	fmt.Println()
	x := 1
	func() { x = 2 }()
	fmt.Println(x)
}
