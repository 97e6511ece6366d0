package main

import "fmt"

func main() {
	n := 3
	g := make([][]int, n)
	for i := range g {
		g[i] = make([]int, n)
		for j := range g[i] {
			g[i][j] = i * j
		}
	}
	fmt.Println(g)
	jag := [][]string{{"a"}, {"b", "c"}, {}}
	for _, row := range jag {
		fmt.Println(len(row), row)
	}
}
