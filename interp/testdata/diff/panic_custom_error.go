package main

import "fmt"

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func main() {
	defer func() {
		if r := recover(); r != nil {
			fmt.Println("recovered:", r)
		}
	}()
	must(nil)
	fmt.Println("fine")
	must(fmt.Errorf("wrapped %d", 42))
	fmt.Println("unreachable")
}
