package main

import "fmt"

type T struct{ t T }

func main() {
	fmt.Println(T{})
}
