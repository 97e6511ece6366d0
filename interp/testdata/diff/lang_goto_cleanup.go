package main

import "fmt"

func find(grid [][]int, target int) (int, int) {
	for i, row := range grid {
		for j, v := range row {
			if v == target {
				return i, j
			}
		}
	}
	return -1, -1
}

func main() {
	grid := [][]int{{1, 2}, {3, 4}}
	fmt.Println(find(grid, 4))
	fmt.Println(find(grid, 9))
	n := 0
again:
	n++
	if n < 3 {
		goto again
	}
	fmt.Println(n)
}
