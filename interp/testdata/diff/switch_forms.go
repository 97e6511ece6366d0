package main

import "fmt"

func grade(n int) string {
	switch {
	case n >= 90:
		return "A"
	case n >= 80:
		return "B"
	}
	return "C"
}

func main() {
	for _, d := range []int{1, 3, 6, 7} {
		switch d {
		case 1, 2:
			fmt.Println("low")
		case 3:
			fmt.Println("three")
			fallthrough
		case 4:
			fmt.Println("four-ish")
		default:
			fmt.Println("other", d)
		}
	}
	fmt.Println(grade(95), grade(85), grade(10))
	switch x := 5; x {
	case 5:
		fmt.Println("five")
	}
}
