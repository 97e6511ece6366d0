package main

import "fmt"

type key struct{ x, y int }

func main() {
	grid := map[key]string{}
	grid[key{1, 2}] = "a"
	grid[key{0, 0}] = "o"
	fmt.Println(grid[key{1, 2}], len(grid))
	if v, ok := grid[key{5, 5}]; !ok {
		fmt.Printf("missing %q\n", v)
	}
	counts := map[string][]int{}
	counts["a"] = append(counts["a"], 1, 2)
	fmt.Println(counts)
}
