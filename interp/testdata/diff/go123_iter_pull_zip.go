package main

import (
	"fmt"
	"iter"
	"slices"
)

func main() {
	a := slices.Values([]int{1, 2, 3, 4})
	b := slices.Values([]string{"one", "two", "three"})
	na, stopA := iter.Pull(a)
	defer stopA()
	nb, stopB := iter.Pull(b)
	defer stopB()
	for {
		x, ok1 := na()
		y, ok2 := nb()
		if !ok1 || !ok2 {
			break
		}
		fmt.Println(x, y)
	}
	next, stop := iter.Pull2(slices.All([]string{"p", "q"}))
	i, v, ok := next()
	fmt.Println(i, v, ok)
	stop()
	i, v, ok = next()
	fmt.Println(i, v, ok)
}
