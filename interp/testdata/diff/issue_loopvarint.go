package main

import "fmt"

func main() {
	var fs []func() int
	for i := range 3 {
		fs = append(fs, func() int { return i * i })
	}
	for _, f := range fs {
		fmt.Println(f())
	}
}
