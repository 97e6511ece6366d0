package main

import "fmt"

type Point struct{ X, Y int }
type Line struct{ A, B Point }

func main() {
	p1, p2 := Point{1, 2}, Point{1, 2}
	fmt.Println(p1 == p2, p1 != Point{2, 1})
	seen := map[Point]bool{}
	for _, p := range []Point{{0, 0}, {1, 1}, {0, 0}, {2, 2}, {1, 1}} {
		seen[p] = true
	}
	fmt.Println(len(seen), seen[Point{2, 2}], seen[Point{3, 3}])
	lines := map[Line]string{{Point{0, 0}, Point{1, 1}}: "diag"}
	fmt.Println(lines[Line{A: Point{}, B: Point{1, 1}}])
	type key struct {
		name string
		n    int
	}
	counts := map[key]int{}
	counts[key{"a", 1}] += 2
	counts[key{"a", 1}]++
	fmt.Println(counts[key{"a", 1}])
	anon := []struct {
		Name string
		Age  int
	}{{"x", 1}, {"y", 2}}
	fmt.Println(anon[1].Name, anon == nil, len(anon))
	var arrKey = map[[3]byte]int{{'a', 'b', 'c'}: 1}
	fmt.Println(arrKey[[3]byte{'a', 'b', 'c'}])
}
