package main

import "fmt"

func main() {
	var a, b int
	var s string
	n, err := fmt.Sscanf("10 20 go", "%d %d %s", &a, &b, &s)
	fmt.Println(n, err, a+b, s)
	var x float64
	fmt.Sscan("2.5", &x)
	fmt.Println(x * 2)
}
