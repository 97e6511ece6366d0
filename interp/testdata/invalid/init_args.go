package main

import "fmt"

func init(x int) {
	fmt.Println(x)
}

func main() {
}
