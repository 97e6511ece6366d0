package main

import "fmt"

func main() {
	graph := map[int][]int{0: {1, 2}, 1: {3}, 2: {3, 4}, 3: {5}, 4: {5}, 5: {}}
	dist := map[int]int{0: 0}
	queue := []int{0}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, v := range graph[u] {
			if _, seen := dist[v]; !seen {
				dist[v] = dist[u] + 1
				queue = append(queue, v)
			}
		}
	}
	for i := 0; i < 6; i++ {
		fmt.Print(dist[i], " ")
	}
	fmt.Println()
}
