package main

import "fmt"

func main() {
	var fs []func()
	for i := 0; i < 10; i++ {
		if i%3 == 0 {
			i++
			continue
		}
		fs = append(fs, func() { fmt.Println("i =", i) })
		i++
	}
	for _, f := range fs {
		f()
	}
}
