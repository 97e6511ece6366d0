package main

import "fmt"

func main() {
	defer func() {
		r := recover()
		fmt.Println("outer recovered:", r)
	}()
	func() {
		defer func() {
			r := recover()
			panic(fmt.Sprint("again: ", r))
		}()
		panic("first")
	}()
}
