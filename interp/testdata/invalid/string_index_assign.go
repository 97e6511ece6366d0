package main

import "fmt"

func main() {
	s := "abc"
	s[0] = 'x'
	fmt.Println(s)
}
