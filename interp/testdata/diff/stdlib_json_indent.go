package main

import (
	"encoding/json"
	"fmt"
)

func main() {
	m := map[string]any{"b": []int{1, 2}, "a": map[string]bool{"x": true}}
	out, _ := json.MarshalIndent(m, "", "  ")
	fmt.Println(string(out))
}
