package main

import "fmt"

func find(grid [][]int, want int) (int, int) {
	i := 0
loop:
	if i >= len(grid) {
		return -1, -1
	}
	for j, v := range grid[i] {
		if v == want {
			return i, j
		}
	}
	i++
	goto loop
}

func main() {
	g := [][]int{{1, 2}, {3, 4}, {5, 6}}
	fmt.Println(find(g, 4))
	fmt.Println(find(g, 7))
	n := 0
retry:
	n++
	if n < 3 {
		fmt.Println("retry", n)
		goto retry
	}
	fmt.Println("done", n)
}
