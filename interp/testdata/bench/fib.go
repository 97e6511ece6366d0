// Naive recursive Fibonacci, n = 27: calls.
package main

import (
	"fmt"
	"time"
)

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func main() {
	best, r := time.Duration(1<<62), 0
	for range 3 {
		t := time.Now()
		r = fib(27)
		best = min(best, time.Since(t))
	}
	fmt.Println("fib(27) =", r)
	fmt.Println("elapsed_ns", best.Nanoseconds())
}
