package main

import "fmt"

func sum(xs ...int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
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

func fact(n int) int {
	if n <= 1 {
		return 1
	}
	return n * fact(n-1)
}

func hanoi(n int, from, to, via string, moves *int) {
	if n == 0 {
		return
	}
	hanoi(n-1, from, via, to, moves)
	*moves++
	hanoi(n-1, via, to, from, moves)
}

func divmod(a, b int) (q, r int) {
	q = a / b
	r = a % b
	return
}

func main() {
	fmt.Println(sum(), sum(1, 2, 3), sum([]int{4, 5}...))
	fmt.Println(join("-", "a", "b", "c"), join(","))
	fmt.Println(fact(10))
	m := 0
	hanoi(10, "a", "c", "b", &m)
	fmt.Println(m)
	q, r := divmod(17, 5)
	fmt.Println(q, r)
	var even, odd func(int) bool
	even = func(n int) bool { return n == 0 || odd(n-1) }
	odd = func(n int) bool { return n != 0 && even(n-1) }
	fmt.Println(even(10), odd(7))
}
