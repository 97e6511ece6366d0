package main

import "fmt"

type Config struct {
	Name    string
	Retries *int
}

func main() {
	c := Config{Name: "x", Retries: new(3)}
	fmt.Println(c.Name, *c.Retries)
	n := 5
	p := new(n * 2)
	n = 0
	fmt.Println(*p)
}
