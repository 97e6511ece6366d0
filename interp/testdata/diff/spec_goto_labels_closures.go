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
	count := 0
search:
	for _, row := range grid {
		for _, v := range row {
			if v%2 == 0 {
				count++
				continue search
			}
		}
	}
	fmt.Println(count)
	acc := []func() int{}
	for _, row := range grid {
		for _, v := range row {
			acc = append(acc, func() int { return v * 10 })
		}
	}
	for _, f := range acc {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
