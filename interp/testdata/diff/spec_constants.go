package main

import "fmt"

type Weekday int

const (
	Sunday Weekday = iota
	Monday
	Tuesday
)

const (
	_  = iota
	KB = 1 << (10 * iota)
	MB
	GB
)

const (
	a, b = iota, iota * 10
	c, d
)

const big = 1 << 100

func main() {
	fmt.Println(Sunday, Monday, Tuesday, KB, MB, GB)
	fmt.Println(a, b, c, d, big>>98)
	const typed int64 = 5
	var f float32 = 1 / 3.0
	fmt.Printf("%T %v %.3f\n", typed, typed*2, f)
	fmt.Println(len("héllo"), 'a'+1, string(rune('a'+1)))
}
