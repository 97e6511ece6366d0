package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

func main() {
	inventory := map[string]int{"pear": 3, "apple": 7, "fig": 0, "kiwi": 12}
	for _, k := range slices.Sorted(maps.Keys(inventory)) {
		fmt.Printf("%-6s %3d\n", k, inventory[k])
	}
	total := 0
	for _, v := range inventory {
		total += v
	}
	fmt.Println("total", total)
	inverted := map[int][]string{}
	for k, v := range inventory {
		inverted[v%2] = append(inverted[v%2], k)
	}
	for _, parity := range []int{0, 1} {
		names := inverted[parity]
		slices.Sort(names)
		fmt.Println(parity, strings.Join(names, ","))
	}
	m2 := maps.Clone(inventory)
	delete(m2, "fig")
	fmt.Println(len(m2), len(inventory))
	fmt.Println(inventory)
}
