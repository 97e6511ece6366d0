package main

import "fmt"

func main() {
	fmt.Println(min(3, 1, 2), max(3, 1, 2), min(2.5, 1), max("b", "a", "c"))
	x, y := 7, -2
	fmt.Println(min(x, y), max(x, y, 0))
	var f float64 = 1.5
	fmt.Println(max(f, 2), min(f, 1))
	m := map[string]int{"a": 1, "b": 2}
	clear(m)
	fmt.Println(len(m), m)
	s := []int{1, 2, 3}
	clear(s)
	fmt.Println(s, len(s))
	type T struct{ a, b int }
	ts := []T{{1, 2}, {3, 4}}
	clear(ts[1:])
	fmt.Println(ts)
	const c = min(10, 20, 5)
	fmt.Println(c)
}
