package main

import "fmt"

func main() {
	var fs []func()
	for _, s := range []string{"a", "b", "c"} {
		fs = append(fs, func() { fmt.Println(s) })
	}
	for i, v := range []int{10, 20} {
		fs = append(fs, func() { fmt.Println(i, v) })
	}
	for _, f := range fs {
		f()
	}
}
