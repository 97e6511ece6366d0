package main

import "fmt"

func g() (int, int) {
	return 1
}

func main() {
	fmt.Println(g())
}
