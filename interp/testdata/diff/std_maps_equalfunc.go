package main

import (
	"fmt"
	"maps"
	"strconv"
)

func main() {
	counts := map[string]int{"a": 1, "b": 2}
	labels := map[string]string{"a": "1", "b": "2"}
	same := func(n int, s string) bool { return strconv.Itoa(n) == s }
	fmt.Println(maps.EqualFunc(counts, labels, same))
	labels["b"] = "3"
	fmt.Println(maps.EqualFunc(counts, labels, same))
	delete(labels, "b")
	fmt.Println(maps.EqualFunc(counts, labels, same))
}
