package main

import "fmt"

func main() {
	primes := []int{}
outer:
	for n := 2; len(primes) < 8; n++ {
		for _, p := range primes {
			if n%p == 0 {
				continue outer
			}
		}
		primes = append(primes, n)
	}
	fmt.Println(primes)
	pairs := 0
rows:
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			if j > i {
				continue rows
			}
			if i+j > 6 {
				break rows
			}
			pairs++
		}
	}
	fmt.Println(pairs)
	words := []string{"a", "bb", "stop", "c"}
scan:
	for _, w := range words {
		switch w {
		case "stop":
			break scan
		default:
			fmt.Print(w, " ")
		}
	}
	fmt.Println()
}
