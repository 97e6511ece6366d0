package main

import "fmt"

type ID int
type Name string
type Scores []int

func main() {
	var i ID = 7
	fmt.Printf("%v %d %T\n", i, i, i)
	fmt.Printf("%v %q %T\n", Name("x"), Name("x"), Name("x"))
	fmt.Printf("%v %T %#v\n", Scores{1, 2}, Scores{}, Scores{3})
}
