package main

import "fmt"

func classify(n int) string {
	switch {
	case n < 0:
		return "neg"
	case n == 0:
		return "zero"
	case n%2 == 0:
		return "even"
	}
	return "odd"
}

func day(d int) string {
	switch d {
	case 0, 6:
		return "weekend"
	case 1, 2, 3, 4, 5:
		return "weekday"
	default:
		return "?"
	}
}

func main() {
	for _, n := range []int{-3, 0, 4, 7} {
		fmt.Print(classify(n), " ")
	}
	fmt.Println()
	fmt.Println(day(0), day(3), day(9))
	switch x := 5; {
	case x > 3:
		fmt.Println("big")
	}
	switch s := "go"; s {
	case "go":
		fmt.Println("gopher")
		break
	case "rust":
		fmt.Println("crab")
	}
}
