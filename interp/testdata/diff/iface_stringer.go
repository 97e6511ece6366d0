package main

import "fmt"

type Color int

const (
	Red Color = iota
	Green
	Blue
)

func (c Color) String() string { return [...]string{"Red", "Green", "Blue"}[c] }

func main() {
	fmt.Println(Red, Blue)
	fmt.Printf("%v %s %d\n", Green, Green, Green)
	fmt.Println([]Color{Red, Green})
}
