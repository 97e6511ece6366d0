package main

import "fmt"

func main() {
	var board [3][3]string
	for i := range board {
		for j := range board[i] {
			board[i][j] = "."
		}
	}
	board[1][1] = "X"
	board[0][2] = "O"
	for _, row := range board {
		fmt.Println(row)
	}
	cube := [2][2][2]int{}
	cube[1][1][1] = 8
	fmt.Println(cube)
}
