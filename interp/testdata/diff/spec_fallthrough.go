package main

import "fmt"

func grade(n int) []string {
	var out []string
	switch {
	case n >= 90:
		out = append(out, "A")
		fallthrough
	case n >= 80:
		out = append(out, "B")
		fallthrough
	case n >= 70:
		out = append(out, "C")
	case n >= 60:
		out = append(out, "D")
	default:
		out = append(out, "F")
	}
	return out
}

func main() {
	for _, n := range []int{95, 85, 75, 65, 10} {
		fmt.Println(n, grade(n))
	}
	switch x := 2; x {
	case 1, 2, 3:
		fmt.Println("small")
		if x == 2 {
			break
		}
		fmt.Println("not reached")
	case 4:
		fmt.Println("four")
	}
	switch {
	default:
		fmt.Println("default first")
	case false:
	}
}
