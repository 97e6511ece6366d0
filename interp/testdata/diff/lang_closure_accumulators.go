package main

import "fmt"

func makeAcc() (add func(int), total func() int) {
	sum := 0
	add = func(n int) { sum += n }
	total = func() int { return sum }
	return
}

func compose(fs ...func(int) int) func(int) int {
	return func(x int) int {
		for i := len(fs) - 1; i >= 0; i-- {
			x = fs[i](x)
		}
		return x
	}
}

func main() {
	add, total := makeAcc()
	for i := 1; i <= 4; i++ {
		add(i)
	}
	fmt.Println(total())
	inc := func(x int) int { return x + 1 }
	dbl := func(x int) int { return x * 2 }
	fmt.Println(compose(inc, dbl)(5), compose(dbl, inc)(5), compose()(5))
	memo := map[int]int{}
	var fib func(int) int
	fib = func(n int) int {
		if n < 2 {
			return n
		}
		if v, ok := memo[n]; ok {
			return v
		}
		memo[n] = fib(n-1) + fib(n-2)
		return memo[n]
	}
	fmt.Println(fib(50))
}
