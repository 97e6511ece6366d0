package main

import "fmt"

func main() {
	fmt.Println(1 << -1)
}
