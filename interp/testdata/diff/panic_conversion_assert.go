package main

import "fmt"

func main() {
	var v any = "text"
	n, ok := v.(int)
	fmt.Println(n, ok)
	fmt.Println(v.(string))
	fmt.Println(v.(int))
}
