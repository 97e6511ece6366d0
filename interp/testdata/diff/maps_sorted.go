package main

import (
	"fmt"
	"sort"
)

func main() {
	m := map[string]int{"banana": 3, "apple": 1, "cherry": 2}
	fmt.Println(m)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Println(k, m[k])
	}
	delete(m, "apple")
	_, ok := m["apple"]
	fmt.Println(len(m), ok)
}
