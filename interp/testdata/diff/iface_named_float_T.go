package main

import "fmt"

type Celsius float64

type Level int

func main() {
	var x any = Celsius(21.5)
	var y fmt.Stringer
	_ = y
	var z any = Level(3)
	fmt.Printf("%T %v\n", x, x)
	fmt.Printf("%T %v\n", z, z)
	vals := []any{Celsius(1), Level(2), 3.0}
	for _, v := range vals {
		fmt.Printf("%T ", v)
	}
	fmt.Println()
}
