package main

import "fmt"

type Count int

func main() {
	for i := range 3 {
		fmt.Print(i, " ")
	}
	fmt.Println()
	n := 0
	for range 4 {
		n++
	}
	fmt.Println(n)
	var c Count = 3
	for i := range c {
		fmt.Printf("%T:%v ", i, i)
	}
	fmt.Println()
	for i := range int8(2) {
		fmt.Printf("%T ", i)
	}
	fmt.Println()
	for i := range 0 {
		fmt.Println("never", i)
	}
	var fs []func() int
	for i := range 3 {
		fs = append(fs, func() int { return i * i })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
	total := 0
	for i := range 10 {
		if i%2 == 0 {
			continue
		}
		if i > 7 {
			break
		}
		total += i
	}
	fmt.Println(total)
}
