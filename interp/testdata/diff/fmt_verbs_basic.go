package main

import "fmt"

func main() {
	fmt.Printf("%d %5d %-5d| %05d %x %X %o %b\n", 42, 42, 42, 42, 255, 255, 8, 5)
	fmt.Printf("%f %.2f %8.3f %e %g\n", 3.14159, 3.14159, 3.14159, 1234.5678, 0.000012)
	fmt.Printf("%s %q %v %10s| %-10s|\n", "go", "go", "go", "go", "go")
	fmt.Printf("%t %c %U %p\n", true, 'G', 'G', nil)
	fmt.Printf("%v %v %v\n", []int{1, 2}, map[string]int{"b": 2, "a": 1}, [2]bool{true})
	fmt.Printf("%x %X % x\n", "hi", []byte("hi"), "hi")
	fmt.Printf("%6.2f%%\n", 12.3456)
	fmt.Printf("%[2]d %[1]d %*d\n", 1, 2, 4, 7)
}
