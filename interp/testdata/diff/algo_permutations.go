package main

import (
	"fmt"
	"strings"
)

func permute(xs []int) [][]int {
	var out [][]int
	var rec func(k int)
	rec = func(k int) {
		if k == len(xs) {
			out = append(out, append([]int(nil), xs...))
			return
		}
		for i := k; i < len(xs); i++ {
			xs[k], xs[i] = xs[i], xs[k]
			rec(k + 1)
			xs[k], xs[i] = xs[i], xs[k]
		}
	}
	rec(0)
	return out
}

func subsets(s string) []string {
	var out []string
	for mask := 0; mask < 1<<len(s); mask++ {
		var b strings.Builder
		for i := range len(s) {
			if mask&(1<<i) != 0 {
				b.WriteByte(s[i])
			}
		}
		out = append(out, b.String())
	}
	return out
}

func main() {
	ps := permute([]int{1, 2, 3})
	fmt.Println(len(ps), ps)
	fmt.Printf("%q\n", subsets("abc"))
}
