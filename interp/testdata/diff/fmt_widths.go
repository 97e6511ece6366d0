package main

import "fmt"

func main() {
	fmt.Printf("|%6s|%-6s|%06.2f|%+d|%x|%#x|%#o|\n", "ab", "ab", 3.14159, 5, 3054, 255, 8)
	fmt.Printf("|%*d|%-*d|\n", 5, 42, 5, 42)
	fmt.Printf("%q %v %x\n", []string{"a", "b"}, [][]int{{1}, {2, 3}}, "xyz")
	fmt.Printf("%5t|%-7v|%3c|\n", false, nil, 'x')
	fmt.Printf("%08b %o %X\n", 13, 64, 48879)
	fmt.Printf("%e %E %.3g\n", 123456.789, 0.000123, 123456.789)
	fmt.Printf("%v %.2v\n", 1e21, 3.14159)
	fmt.Printf("%d%%\n", 50)
}
