package main

import "fmt"

func primes(n int) []int {
	sieve := make([]bool, n+1)
	var out []int
	for i := 2; i <= n; i++ {
		if sieve[i] {
			continue
		}
		out = append(out, i)
		for j := i * i; j <= n; j += i {
			sieve[j] = true
		}
	}
	return out
}

func main() {
	fmt.Println(primes(50))
}
