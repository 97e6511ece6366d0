package main

import "fmt"

type T struct {
	A int
	B string
	C []float64
	D map[string]int
	E *int
}

func main() {
	n := 7
	t := T{1, "x", []float64{1.5}, map[string]int{"k": 1}, nil}
	fmt.Printf("%v\n%+v\n", t, t)
	fmt.Printf("|%5d|%-5d|%05d|%x|%o|%b|\n", 42, 42, 42, 255, 8, 5)
	fmt.Printf("|%8.3f|%-8.2f|%e|%g|\n", 3.14159, 2.5, 123456.789, 0.000012)
	fmt.Printf("|%10s|%-10s|%.2s|%q|\n", "go", "go", "golang", `a"b`)
	fmt.Printf("%t %v %p\n", true, nil, nil)
	fmt.Printf("%3c|%-4q|%#x|%#o\n", 'A', 'B', 255, 8)
	fmt.Printf("%[2]d %[1]d %d\n", 1, 2)
	fmt.Printf("%*d|%-*d|\n", 5, n, 4, n)
	fmt.Println(fmt.Sprintf("%6.2f%%", 12.3456))
	fmt.Printf("%v %d\n", []int{1, 2}, map[string]int{"b": 2, "a": 1})
	fmt.Printf("%T %T %T %T\n", 1, "s", 2.0, []string{})
	fmt.Printf("%d %s\n", "str", 5)
	fmt.Printf("%d\n")
	fmt.Printf("%d %d\n", 1, 2, 3)
}
