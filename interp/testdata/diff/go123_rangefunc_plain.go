package main

import "fmt"

func count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				fmt.Println("stopped")
				return
			}
		}
	}
}

func pairs(yield func(string, int) bool) {
	_ = yield("a", 1) && yield("b", 2)
}

func sum(n int) int {
	s := 0
	for x := range count(n) {
		switch {
		case x == 2:
			continue
		}
		s += x
	}
	return s
}

func main() {
	for x := range count(10) {
		if x == 1 {
			continue
		}
		if x == 4 {
			break
		}
		fmt.Println(x)
	}
	for k, v := range pairs {
		fmt.Println(k, v)
	}
	var k string
	for k = range pairs {
	}
	fmt.Println(k, sum(4))
}
