package main

import "fmt"

func transpose(m [][]int) [][]int {
	if len(m) == 0 {
		return nil
	}
	t := make([][]int, len(m[0]))
	for i := range t {
		t[i] = make([]int, len(m))
		for j := range m {
			t[i][j] = m[j][i]
		}
	}
	return t
}

func main() {
	var board [3][3]rune
	for i := range board {
		for j := range board[i] {
			board[i][j] = '.'
		}
	}
	board[1][1] = 'X'
	board[0][2] = 'O'
	for _, row := range board {
		fmt.Println(string(row[:]))
	}
	m := [][]int{{1, 2, 3}, {4, 5, 6}}
	fmt.Println(transpose(m))
	jag := [][]string{{"a"}, {"b", "c"}, {}}
	for i, r := range jag {
		fmt.Println(i, len(r), r)
	}
	cube := [2][2][2]int{}
	cube[1][0][1] = 7
	fmt.Println(cube)
}
