package main

import (
	"fmt"
	"sort"
	"strings"
)

type Middleware func(string) string

func chain(ms ...Middleware) Middleware {
	return func(s string) string {
		for i := len(ms) - 1; i >= 0; i-- {
			s = ms[i](s)
		}
		return s
	}
}

func memo(f func(int) int) func(int) int {
	cache := map[int]int{}
	return func(n int) int {
		if v, ok := cache[n]; ok {
			return v
		}
		v := f(n)
		cache[n] = v
		return v
	}
}

func main() {
	up := Middleware(strings.ToUpper)
	ex := Middleware(func(s string) string { return s + "!" })
	fmt.Println(chain(up, ex)("hi"))
	calls := 0
	sq := memo(func(n int) int { calls++; return n * n })
	fmt.Println(sq(4), sq(4), sq(5), calls)
	words := []string{"banana", "Apple", "cherry"}
	sort.Slice(words, func(i, j int) bool { return strings.ToLower(words[i]) < strings.ToLower(words[j]) })
	fmt.Println(words)
	handlers := map[string]func(int) int{
		"double": func(x int) int { return 2 * x },
		"neg":    func(x int) int { return -x },
	}
	names := []string{"neg", "double"}
	for _, n := range names {
		fmt.Println(n, handlers[n](21))
	}
}
