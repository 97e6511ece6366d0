package main

import "fmt"

func main() {
	m := map[string]map[string]int{}
	for _, p := range [][2]string{{"a", "x"}, {"a", "y"}, {"b", "x"}} {
		if m[p[0]] == nil {
			m[p[0]] = map[string]int{}
		}
		m[p[0]][p[1]]++
	}
	fmt.Println(m)
	clear(m)
	fmt.Println(len(m))
}
