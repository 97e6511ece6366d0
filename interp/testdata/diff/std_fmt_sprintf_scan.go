package main

import (
	"fmt"
	"strings"
)

func main() {
	var name string
	var age int
	var h float64
	n, err := fmt.Sscanf("ann 31 1.70", "%s %d %f", &name, &age, &h)
	fmt.Println(n, err, name, age, h)
	var a, b int
	n, err = fmt.Sscan("7\n8", &a, &b)
	fmt.Println(n, err, a+b)
	_, err = fmt.Sscanf("x", "%d", &a)
	fmt.Println(err != nil)
	var w1, w2 string
	fmt.Fscan(strings.NewReader("alpha beta"), &w1, &w2)
	fmt.Println(w2, w1)
	s := fmt.Sprintf("%6.2f|%-6s|%06d|%x|%c|%v", 3.14159, "go", 42, "go", 0x1F600, []string{"a"})
	fmt.Println(s)
	fmt.Println(fmt.Sprint("a", 1, 2, "b", "c", 3.0), fmt.Sprintln("x", 1))
	fmt.Printf("%3c|%-3c|%q|%#q\n", 'x', 'y', "a`b", "ab")
	fmt.Printf("%t %8.3e %G\n", false, 1234.5678, 1e-10)
	fmt.Printf("%v %v\n", struct{}{}, [0]int{})
}
